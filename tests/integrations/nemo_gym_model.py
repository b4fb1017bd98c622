"""A scripted OpenAI-compatible model server for NeMo Gym's rollout collection (tests/integrations/test_nemo_gym.py):
`POST /v1/responses` answers, as the Responses API does, the fixed completion of the request's last user message.

argv: a JSON object {user message: completion}; prints `listening on http://HOST:PORT/v1`, then serves.
"""

from __future__ import annotations

import itertools
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_ids = itertools.count()


def response(model: str, text: str) -> dict:
    n = next(_ids)
    return {"id": f"resp_{n}", "object": "response", "created_at": time.time(), "model": model, "status": "completed",
            "output": [{"type": "message", "id": f"msg_{n}", "role": "assistant", "status": "completed",
                        "content": [{"type": "output_text", "text": text, "annotations": []}]}],
            "parallel_tool_calls": False, "tool_choice": "auto", "tools": []}


def last_user_text(request: dict) -> str:
    turns = [item for item in request["input"] if item.get("role") == "user"] if isinstance(request["input"], list) \
        else [{"content": request["input"]}]
    content = turns[-1]["content"]
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)


def main() -> None:
    completions = json.loads(sys.argv[1])

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            body = json.dumps(response(request.get("model", "scripted"), completions[last_user_text(request)]))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}/v1", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()

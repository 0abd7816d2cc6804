#!/usr/bin/env python3
"""Scripted LLM server for kbcc's tests.

Speaks the OpenAI chat-completions protocol (POST /v1/chat/completions) and
the Anthropic messages protocol (POST /v1/messages) on 127.0.0.1, validating
requests the way the real services do (auth header, required fields), and
replays the responses of a script, one per request, in order:

  {"responses": [
     {"content": "text of the assistant message", "usage": [in, out]},
     {"status": 429, "retry_after": 1},
     {"status": 500},
     {"delay": 5, "content": "..."},            # slower than the client's timeout
     {"raw": "not json {"}                      # malformed body with status 200
  ]}

When the script runs out, the last response repeats. Every request is
appended to --log as one JSON line: time, path, headers (lower-case), body.
The chosen port is written to --port-file.
"""
import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
STATE = {"script": [], "next": 0, "log": None}


def next_response():
    with LOCK:
        script = STATE["script"]
        if not script:
            return {"content": ""}
        i = min(STATE["next"], len(script) - 1)
        STATE["next"] += 1
        return script[i]


def openai_error(status, message):
    kind = {400: "invalid_request_error", 401: "invalid_api_key", 429: "rate_limit_exceeded"}.get(status, "server_error")
    return {"error": {"message": message, "type": kind, "param": None, "code": kind}}


def anthropic_error(status, message):
    kind = {400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_error",
            529: "overloaded_error"}.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": message}}


def validate(path, headers, body):
    """Returns (status, message) for an invalid request, else None."""
    if not isinstance(body, dict) or not isinstance(body.get("model"), str) or not body.get("model"):
        return 400, "model: field required"
    msgs = body.get("messages")
    if not isinstance(msgs, list) or not msgs:
        return 400, "messages: field required"
    if path == "/v1/messages":
        if not headers.get("x-api-key"):
            return 401, "x-api-key header is required"
        if not headers.get("anthropic-version"):
            return 400, "anthropic-version header is required"
        if not isinstance(body.get("max_tokens"), int):
            return 400, "max_tokens: field required"
        for m in msgs:
            if m.get("role") not in ("user", "assistant"):
                return 400, "messages: roles must be user or assistant (system goes in the top-level field)"
    else:
        auth = headers.get("authorization", "")
        if STATE.get("require_key") and not auth.startswith("Bearer "):
            return 401, "You didn't provide an API key. Received: " + auth
        for m in msgs:
            if m.get("role") not in ("system", "user", "assistant"):
                return 400, "invalid role"
    return None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, payload, extra=None, raw=None):
        data = raw.encode() if raw is not None else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (extra or {}).items():
            self.send_header(k, str(v))
        self.end_headers()
        try:
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length).decode("utf-8", "replace")
        headers = {k.lower(): v for k, v in self.headers.items()}
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        with LOCK:
            with open(STATE["log"], "a") as f:
                f.write(json.dumps({"time": time.time(), "path": self.path, "headers": headers,
                                    "body": body}) + "\n")
        anthropic = self.path == "/v1/messages"
        if self.path not in ("/v1/messages", "/v1/chat/completions"):
            return self.send(404, {"error": {"message": "not found: " + self.path}})
        err = anthropic_error if anthropic else openai_error
        bad = validate(self.path, headers, body)
        if bad:
            return self.send(bad[0], err(bad[0], bad[1]))
        r = next_response()
        if r.get("delay"):
            time.sleep(r["delay"])
        status = r.get("status", 200)
        extra = {}
        if "retry_after" in r:
            extra["Retry-After"] = r["retry_after"]
        if "raw" in r:
            return self.send(status, None, extra, raw=r["raw"])
        if status != 200:
            message = r.get("message", "scripted error")
            if r.get("echo_auth"):
                message += " (received " + headers.get("x-api-key", headers.get("authorization", "")) + ")"
            return self.send(status, err(status, message), extra)
        text = r.get("content", "")
        tin, tout = r.get("usage", [100, 50])
        if anthropic:
            payload = {"id": "msg_test", "type": "message", "role": "assistant", "model": body["model"],
                       "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                       "stop_sequence": None, "usage": {"input_tokens": tin, "output_tokens": tout}}
        else:
            payload = {"id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()),
                       "model": body["model"],
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                    "finish_reason": "stop"}],
                       "usage": {"prompt_tokens": tin, "completion_tokens": tout, "total_tokens": tin + tout}}
        self.send(200, payload, extra)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--script", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--require-key", action="store_true")
    a = ap.parse_args()
    with open(a.script) as f:
        STATE["script"] = json.load(f)["responses"]
    STATE["log"] = a.log
    STATE["require_key"] = a.require_key
    open(a.log, "w").close()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    tmp = a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    import os
    os.replace(tmp, a.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()

"""Parsing on a MinerU server: `mineru-api`, or `mineru-router` in front of many of them.

A team that outgrows one machine parses on GPUs behind MinerU's own V1 HTTP API; deepread
then sends each file there instead of parsing it here (`DEEPREAD_MINERU_URL`). This runs in
the parser's child process (`mineru_worker`), in place of MinerU's in-process `parse`, so
everything around it stays as it is: the time limit and memory ceiling, the text layer and
type sizes read from the PDF here, the cache, the structure, the store.

The flow, as the API defines it: `POST /v1/uploads`, `PUT` the bytes, `POST …/complete` (a
file the server already holds, by its SHA-256, skips the upload); `POST /v1/parse/jobs` with
`output_formats=["middle_json"]`; poll `GET /v1/parse/jobs/{id}`; download the middle JSON and
render MinerU's content list from it here (the API has no content-list output), which gives
exactly what an in-process parse gives.

What goes wrong is told apart: a server that cannot be reached, answers 5xx, loses a job
or takes too long says nothing about the file (`RemoteUnavailable`, a failure that may
pass: parsed again later); a job that fails on the file (`parse_failed`) says the file
cannot be parsed.
"""

from __future__ import annotations

import hashlib
import json
import mimetypes
import time
from pathlib import Path
from typing import Any

import httpx

TIER_PREFERENCE = ("standard", "basic", "flash")  # best first
_TERMINAL = {"completed", "partial", "failed", "canceled"}
REQUEST_TIMEOUT_S = 60.0
RETRIES = 3  # a request that fails in transport is tried this often, a second apart and more
POLL_MAX_S = 2.0


class RemoteUnavailable(RuntimeError):
    """The server could not do the work (down, overloaded, restarted, too slow): may pass."""


class RemoteRejected(RuntimeError):
    """The server parsed the file and failed on it, or refused the request as made."""


class MineruClient:
    def __init__(self, url: str, api_key: str | None = None, timeout_s: float = 600.0):
        self.url = url.rstrip("/")
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.client = httpx.Client(base_url=self.url, headers=headers, timeout=REQUEST_TIMEOUT_S)
        self.deadline = time.monotonic() + timeout_s

    def best_tier(self) -> str:
        """The best tier the server offers (`GET /v1/tiers`)."""
        offered = {t.get("id") for t in self._call("GET", "/v1/tiers").get("data", [])}
        for tier in TIER_PREFERENCE:
            if tier in offered:
                return tier
        raise RemoteRejected(f"the MinerU server at {self.url} offers no tier deepread reads ({sorted(offered)})")

    def middle_json(self, path: Path, tier: str, ocr_mode: str = "txt") -> dict:
        """Upload `path`, parse it on the server and return MinerU's middle JSON."""
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        described = {"filename": path.name, "bytes": len(data), "mime_type": mime, "sha256sum": digest}
        upload = self._call("POST", "/v1/uploads", json=described)
        if upload.get("status") != "completed":  # not already held by the server
            # (the upload_url the answer gives is relative behind mineru-router: the path is rebuilt here)
            self._call("PUT", f"/v1/uploads/{upload['id']}/content", content=data, headers={"Content-Type": mime})
            upload = self._call("POST", f"/v1/uploads/{upload['id']}/complete", json={"sha256sum": digest})
        job = self._call(
            "POST",
            "/v1/parse/jobs",
            json={
                "files": [{"source": {"type": "file_id", "file_id": upload["file"]["id"]}}],
                "tier": tier,
                "ocr_mode": ocr_mode,
                "output_formats": ["middle_json"],
            },
        )
        delay = 0.2
        while job.get("status") not in _TERMINAL:
            if time.monotonic() > self.deadline:
                try:
                    self.client.delete(f"/v1/parse/jobs/{job['job_id']}")
                finally:
                    raise RemoteUnavailable(f"the MinerU server at {self.url} did not finish the job in time")
            time.sleep(delay)
            delay = min(delay * 1.5, POLL_MAX_S)
            job = self._call("GET", f"/v1/parse/jobs/{job['job_id']}")
        entry = (job.get("files") or [{}])[0]
        if job["status"] != "completed" or entry.get("status") != "completed":
            error = entry.get("error") or {}
            message = f"the MinerU server could not parse it ({error.get('code')}: {error.get('message')})"
            if error.get("code") == "parse_failed":
                raise RemoteRejected(message)
            raise RemoteUnavailable(message)  # lost, canceled or failed for the server's own reasons
        file_id = entry["output_files"]["middle_json"]["file_id"]
        return json.loads(self._send("GET", f"/v1/files/{file_id}/content").content)

    def _call(self, method: str, url: str, **kwargs: Any) -> dict:
        """One request whose answer is JSON (an empty answer: {})."""
        response = self._send(method, url, **kwargs)
        return response.json() if response.content else {}

    def _send(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        """One request, tried again on a transport error; 5xx (and 429) mean the server cannot now."""
        for attempt in range(RETRIES):
            try:
                response = self.client.request(method, url, **kwargs)
            except httpx.TransportError as exc:
                if attempt == RETRIES - 1 or time.monotonic() > self.deadline:
                    raise RemoteUnavailable(f"the MinerU server at {self.url} cannot be reached ({exc})") from exc
                time.sleep(1.0 + attempt)
                continue
            if response.status_code >= 500 or response.status_code == 429:
                raise RemoteUnavailable(f"the MinerU server at {self.url} cannot parse now ({_error(response)})")
            if response.status_code >= 400:
                raise RemoteRejected(f"the MinerU server at {self.url} refused the request ({_error(response)})")
            return response
        raise AssertionError("unreachable")


def _error(response: httpx.Response) -> str:
    try:
        error = response.json().get("error") or {}
        return f"{response.status_code} {error.get('code')}: {error.get('message')}"
    except ValueError:
        return f"{response.status_code} {response.text[:200]}"

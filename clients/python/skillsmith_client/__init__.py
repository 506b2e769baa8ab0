"""A client for the Skillsmith REST API: record sessions, recall skills, give feedback, forget.

Standard library only. The server is `skillsmith serve` (default http://127.0.0.1:7700).
"""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, List, Optional

__all__ = ["Client", "Session", "SkillsmithError"]
__version__ = "0.1.0"

CSRF_HEADER = "X-Skillsmith-CSRF"


class SkillsmithError(Exception):
    """A request the server refused or could not answer: `status` is the HTTP status (0: no answer)."""

    def __init__(self, status: int, message: str):
        super().__init__(f"{status}: {message}" if status else message)
        self.status = status
        self.message = message


class Client:
    """One Skillsmith server. `token`: the bearer token the server was started with, if any."""

    def __init__(self, base_url: str = "http://127.0.0.1:7700", token: Optional[str] = None, timeout: float = 30.0):
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout

    # ── recording ────────────────────────────────────────────────────────────

    def start_session(self, goal: str, *, session_id: Optional[str] = None, cue: Optional[str] = None,
                      agent_id: Optional[str] = None, source: Optional[str] = None) -> "Session":
        """Opens a session (or re-opens a live one by id); its calls are stored as they are recorded."""
        body = _drop_none({"goal": goal, "id": session_id, "cue": cue, "agentId": agent_id, "source": source})
        data = self._request("POST", "/api/sessions", body)
        return Session(self, data["id"], goal, data.get("callCount", 0))

    def record(self, goal: str, **kwargs: Any) -> "Session":
        """`start_session`, for use as a context manager: ends with success, or failure when the block raises."""
        return self.start_session(goal, **kwargs)

    def record_call(self, session_id: str, tool: str, args: Optional[Dict[str, Any]] = None, *, result: Any = None,
                    ok: Optional[bool] = None, error: Optional[str] = None, duration_ms: Optional[float] = None,
                    position: Optional[int] = None) -> Dict[str, Any]:
        body = _drop_none({"tool": tool, "args": args or {}, "result": result, "ok": ok, "error": error,
                           "durationMs": duration_ms, "position": position})
        return self._request("POST", f"/api/sessions/{_q(session_id)}/calls", body)

    def end_session(self, session_id: str, outcome: str, reward: Optional[float] = None) -> Dict[str, Any]:
        """Ends a session: success / failure / unknown. The same outcome again is a no-op; another is refused (409)."""
        return self._request("POST", f"/api/sessions/{_q(session_id)}/end", _drop_none({"outcome": outcome, "reward": reward}))

    def report_outcome(self, session_id: str, outcome: str, reward: Optional[float] = None) -> Dict[str, Any]:
        """Reports the outcome of a session later (each skill recalled for it gets a trial)."""
        return self._request("POST", f"/api/sessions/{_q(session_id)}/outcome", _drop_none({"outcome": outcome, "reward": reward}))

    def get_session(self, session_id: str) -> Dict[str, Any]:
        return self._request("GET", f"/api/sessions/{_q(session_id)}")

    # ── recall and feedback ──────────────────────────────────────────────────

    def recall(self, goal: str, top_k: Optional[int] = None, session_id: Optional[str] = None,
               tools: Optional[List[str]] = None) -> Dict[str, Any]:
        """`{"skills": [...], "context": "<prompt block>", "tools": [...]}` for a goal (skills may be empty).

        `tools`: the names of the tools the agent has; only skills whose steps call none other are served.
        """
        body = _drop_none({"goal": goal, "topK": top_k, "sessionId": session_id, "tools": list(tools) if tools else None})
        return self._request("POST", "/api/recall", body)

    def synthesize(self, dry_run: bool = False) -> Dict[str, Any]:
        """Runs a learning pass over the sessions stored since the last one: what it created, updated, skipped."""
        return self._request("POST", "/api/synthesize", {"dryRun": dry_run})

    def feedback(self, skill: str, signal: str, session_id: Optional[str] = None) -> Dict[str, Any]:
        """pass | fail | up | down | reward=<0..1> for a skill (name or id): `{"before": skill, "after": skill}`."""
        return self._request("POST", f"/api/skills/{_q(skill)}/feedback", _drop_none({"signal": signal, "sessionId": session_id}))

    def skills(self, **query: Any) -> List[Dict[str, Any]]:
        qs = urllib.parse.urlencode({k: str(v).lower() if isinstance(v, bool) else v for k, v in query.items() if v is not None})
        return self._request("GET", "/api/skills" + (f"?{qs}" if qs else ""))["items"]

    def skill(self, name: str) -> Dict[str, Any]:
        return self._request("GET", f"/api/skills/{_q(name)}")

    def explain(self, name: str) -> Dict[str, Any]:
        return self._request("GET", f"/api/skills/{_q(name)}/explain")

    def compile(self, session_ids: Optional[List[str]] = None, cue: Optional[str] = None, commit: bool = False) -> Dict[str, Any]:
        return self._request("POST", "/api/compile", _drop_none({"sessions": session_ids, "cue": cue, "commit": commit}))

    # ── forgetting ───────────────────────────────────────────────────────────

    def forget_session(self, session_id: str) -> Dict[str, Any]:
        """Deletes a session's goal, calls and results; skills learned from it keep a forgotten-parent marker."""
        return self._request("DELETE", f"/api/sessions/{_q(session_id)}")["forgotten"]

    def forget_skill(self, name: str) -> Dict[str, Any]:
        """Deletes a skill with its versions, lineage and track record; it is never recalled again."""
        return self._request("DELETE", f"/api/skills/{_q(name)}")["forgotten"]

    # ── transport ────────────────────────────────────────────────────────────

    def _request(self, method: str, path: str, body: Any = None) -> Any:
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if method not in ("GET", "HEAD"):
            headers[CSRF_HEADER] = "1"
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        req = urllib.request.Request(self.base_url + path, data=data, headers=headers, method=method)
        # Every failure is a SkillsmithError, so an agent that catches it to keep running does keep running.
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as res:
                status = res.status
                text = res.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as e:
            raw = e.read().decode("utf-8", "replace")
            try:
                parsed = json.loads(raw)
            except ValueError:
                parsed = None
            message = parsed.get("error", raw) if isinstance(parsed, dict) else raw
            raise SkillsmithError(e.code, str(message)) from None
        except urllib.error.URLError as e:
            raise SkillsmithError(0, f"cannot reach {self.base_url}: {e.reason}") from None
        except (OSError, http.client.HTTPException) as e:
            # A timeout, a connection closed without an answer, a malformed status line.
            raise SkillsmithError(0, f"no answer from {self.base_url}: {type(e).__name__}: {e}") from None
        try:
            return json.loads(text) if text else None
        except ValueError:
            raise SkillsmithError(status, f"the answer from {self.base_url}{path} is not JSON: {text[:200]!r}") from None


class Session:
    """A live session on the server. Calls are numbered here, so a retried call is stored once."""

    def __init__(self, client: Client, session_id: str, goal: str, next_position: int = 0):
        self.client = client
        self.id = session_id
        self.goal = goal
        self.next_position = next_position
        self.ended = False

    def call(self, tool: str, args: Optional[Dict[str, Any]] = None, *, result: Any = None, ok: Optional[bool] = None,
             error: Optional[str] = None, duration_ms: Optional[float] = None) -> Dict[str, Any]:
        out = self.client.record_call(self.id, tool, args, result=result, ok=ok, error=error, duration_ms=duration_ms,
                                      position=self.next_position)
        self.next_position += 1
        return out

    def recall(self, goal: Optional[str] = None, top_k: Optional[int] = None) -> Dict[str, Any]:
        """Recall for this session: the skills served get a trial when the session ends with an outcome."""
        return self.client.recall(goal or self.goal, top_k=top_k, session_id=self.id)

    def end(self, outcome: str = "success", reward: Optional[float] = None) -> Dict[str, Any]:
        out = self.client.end_session(self.id, outcome, reward)
        self.ended = True
        return out

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if not self.ended:
            self.end("failure" if exc_type else "success")


def _q(segment: str) -> str:
    return urllib.parse.quote(segment, safe="")


def _drop_none(d: Dict[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}

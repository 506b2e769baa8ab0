"""A client for the Skillsmith REST API: record, list and read sessions, ingest logs, recall skills, give feedback,
read, diff, enable or disable, rename, promote and export skills, find look-alike sessions, read the event stream,
check health, forget. `ROUTES` names the method that covers each REST route.

Standard library only. The server is `skillsmith serve` (default http://127.0.0.1:7700).
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

__all__ = ["Client", "Page", "Session", "SkillsmithError", "SkillsZip", "ROUTES"]
__version__ = "0.1.0"

CSRF_HEADER = "X-Skillsmith-CSRF"

_UNSET = object()


class SkillsmithError(Exception):
    """A request the server refused or could not answer: `status` is the HTTP status (0: no answer, or a local file
    that could not be read or written). `code`: the server's stable code for the error (`SESSION_STATE`: start a new
    session; `PASS_LOCKED`: send the same request again later; `NOT_FOUND`, `BAD_REQUEST`, ...), None when no answer
    said one. `body`: the server's JSON answer when it holds more than a message (an ingest's 422 says what was stored
    and each rejected record), else None."""

    def __init__(self, status: int, message: str, body: Any = None, code: Optional[str] = None):
        super().__init__(f"{status}: {message}" if status else message)
        self.status = status
        self.message = message
        self.body = body
        self.code = code


class SkillsZip(bytes):
    """A zip archive of `<name>/SKILL.md` files, as bytes. `skipped`: the names of skills the server could not
    export (a SKILL.md that does not validate), left out of the archive."""

    skipped: List[str]


class Page(list):
    """One page of a paged list (`skills`, `sessions`), as a list of its items. `total`: how many there are in all;
    `limit` and `offset`: the page the server served (its defaults when none were given)."""

    total: int
    limit: int
    offset: int


# Each REST route (method, path as the OpenAPI document at /api/openapi.json names it) and the Client method that
# calls it: a route the document gains without a method here fails test/python-client.test.ts.
ROUTES: Tuple[Tuple[str, str, str], ...] = (
    ("GET", "/api/health", "health"),
    ("GET", "/api/stats", "stats"),
    ("GET", "/api/openapi.json", "openapi"),
    ("GET", "/api/skills", "skills"),
    ("GET", "/api/skills.zip", "export_skills"),
    ("GET", "/api/skills/{name}", "skill"),
    ("PATCH", "/api/skills/{name}", "rename_skill"),
    ("PATCH", "/api/skills/{name}", "enable_skill"),
    ("PATCH", "/api/skills/{name}", "disable_skill"),
    ("DELETE", "/api/skills/{name}", "forget_skill"),
    ("POST", "/api/skills/{name}/promote", "promote_skill"),
    ("PUT", "/api/skills/{name}/SKILL.md", "edit_skill"),
    ("POST", "/api/skills/{name}/revert", "revert_skill"),
    ("GET", "/api/skills/{name}/SKILL.md", "skill_md"),
    ("GET", "/api/skills/{name}/explain", "explain"),
    ("GET", "/api/skills/{name}/diff", "diff"),
    ("POST", "/api/skills/{name}/feedback", "feedback"),
    ("POST", "/api/ingest", "ingest"),
    ("GET", "/api/sessions", "sessions"),
    ("POST", "/api/sessions", "start_session"),
    ("POST", "/api/sessions/forget", "forget_sessions"),
    ("GET", "/api/sessions/{id}", "get_session"),
    ("DELETE", "/api/sessions/{id}", "forget_session"),
    ("POST", "/api/sessions/{id}/calls", "record_call"),
    ("POST", "/api/sessions/{id}/end", "end_session"),
    ("POST", "/api/sessions/{id}/outcome", "report_outcome"),
    ("POST", "/api/synthesize", "synthesize"),
    ("POST", "/api/compile", "compile"),
    ("GET", "/api/look-alike", "look_alike"),
    ("POST", "/api/recall", "recall"),
    ("GET", "/api/events", "events"),
    ("GET", "/api/events/stream", "stream_events"),
)


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
        data = _field(self._request("POST", "/api/sessions", body), "id", f"{self.base_url}/api/sessions")
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
        """One stored session with each of its tool calls. An unknown id is refused (404)."""
        return self._request("GET", f"/api/sessions/{_q(session_id)}")

    def sessions(self, limit: Optional[int] = None, offset: Optional[int] = None) -> Page:
        """A page of the stored sessions, newest first (`limit` 1..200, default 50; `offset` default 0), each
        without its calls: `{"id", "goal", "outcome", "callCount", "tools", ...}`. A Page: `.total` counts them all.
        A limit or offset out of range is refused (400)."""
        query = _drop_none({"limit": limit, "offset": offset})
        where = "/api/sessions" + (f"?{urllib.parse.urlencode(query)}" if query else "")
        return _page(self._request("GET", where), self.base_url + where)

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

    def feedback(self, skill: str, signal: str, session_id: Optional[str] = None,
                 feedback_id: Optional[str] = None) -> Dict[str, Any]:
        """pass | fail | up | down | reward=<0..1> for a skill (name or id): `{"before": skill, "after": skill,
        "repeated": bool}`. `feedback_id`: a key of your choosing that makes a retry safe: the same feedback sent
        again under it is answered `repeated` True and not counted twice; another signal under it is refused (409)."""
        body = _drop_none({"signal": signal, "sessionId": session_id, "feedbackId": feedback_id})
        return self._request("POST", f"/api/skills/{_q(skill)}/feedback", body)

    def skills(self, **query: Any) -> List[Dict[str, Any]]:
        """The live skills, filtered, sorted and paged by the query parameters of `GET /api/skills` (`status`,
        `corpus`, `enabled`, `all`, `q`, `sort`, `summary`, `limit` up to 500, `offset`; booleans as True/False).
        A Page (a list): `.total` counts every skill that matched. A bad parameter is refused (400)."""
        qs = urllib.parse.urlencode({k: str(v).lower() if isinstance(v, bool) else v for k, v in query.items() if v is not None})
        where = "/api/skills" + (f"?{qs}" if qs else "")
        return _page(self._request("GET", where), self.base_url + where)

    def skill(self, name: str) -> Dict[str, Any]:
        """One skill (name or id) with its SKILL.md (`skillMd`). An unknown name is refused (404); when the name was
        renamed or superseded, the error's `.body["nowKnownAs"]` names the skill it became."""
        return self._request("GET", f"/api/skills/{_q(name)}")

    def explain(self, name: str, *, sessions: Optional[int] = None) -> Dict[str, Any]:
        """Why a skill exists: parents, versions, supersede chain, trials and track record. `sessions`: give only the
        first N parent sessions (`parents.sessionCount` counts them all)."""
        query = _drop_none({"sessions": sessions})
        return self._request("GET", f"/api/skills/{_q(name)}/explain" + (f"?{urllib.parse.urlencode(query)}" if query else ""))

    def diff(self, name: str, from_version: Optional[str] = None, to_version: Optional[str] = None) -> Dict[str, Any]:
        """What changed in a skill's SKILL.md between two versions (default: the latest against the one before):
        `{"id", "name", "from", "to", "hunks"}` with `diff -u` hunks; `from` is None for a skill of one version.
        A version that is not like 1.2.0 is refused (400), an unknown skill (404)."""
        query = _drop_none({"from": from_version, "to": to_version})
        return self._request("GET", f"/api/skills/{_q(name)}/diff" + (f"?{urllib.parse.urlencode(query)}" if query else ""))

    def skill_md(self, name: str, *, path: Union[str, "os.PathLike[str]", None] = None) -> str:
        """One skill's SKILL.md as it exports (secrets redacted, validated), as text; written to `path` as well when
        given. An unknown skill is refused (404), one that does not validate (422)."""
        where = f"/api/skills/{_q(name)}/SKILL.md"
        status, headers, data = self._fetch("GET", where, accept="text/markdown")
        kind = headers.get("Content-Type", "")
        if not kind.startswith("text/markdown"):
            raise SkillsmithError(status, f"the answer from {self.base_url}{where} is not a SKILL.md ({kind or 'no Content-Type'}): {data[:200]!r}")
        text = data.decode("utf-8", "replace")
        if path is not None:
            _write(path, data)
        return text

    def compile(self, session_ids: Optional[List[str]] = None, cue: Optional[str] = None, commit: bool = False, *,
                facts: Optional[List[str]] = None) -> Dict[str, Any]:
        """Distils one skill from sessions (ids), a cue or facts (ids): a dry run unless `commit`. Giving none of the
        three is refused (400). A session still open (not ended, no outcome) is not used: `leftOut` lists each
        `{"id", "reason"}`; when every session named is open, the call is refused (400, COMPILE_INVALID)."""
        body = _drop_none({"sessions": session_ids, "cue": cue, "facts": facts, "commit": commit})
        return self._request("POST", "/api/compile", body)

    def look_alike(self) -> List[Dict[str, Any]]:
        """Groups of sessions that ran the same steps but were asked for in words too far apart to group, each too
        few to learn from alone (up to 20, largest first): each `{"sessions", "goals", "steps"}`.
        `compile(group["sessions"], commit=True)` learns one."""
        return self._request("GET", "/api/look-alike")

    def stats(self) -> Dict[str, Any]:
        """Counts of skills (by status and corpus) and sessions, the last event id, the models in use."""
        return self._request("GET", "/api/stats")

    def health(self) -> Dict[str, Any]:
        """`{"ok": True, "name", "version", "store": "ok"}` when the server runs and its memory answers (no token
        needed). A memory whose database cannot be reached raises SkillsmithError 503, `.body` saying
        `{"ok": False, "store": "unreachable", "error": ...}`."""
        return self._request("GET", "/api/health")

    def openapi(self) -> Dict[str, Any]:
        """The server's OpenAPI 3.1 document of its REST API (no token needed)."""
        return self._request("GET", "/api/openapi.json")

    # ── ingesting logs ───────────────────────────────────────────────────────

    def ingest(self, log: Union[str, bytes, List[Any], Dict[str, Any]], *, format: Optional[str] = None,
               judge: Optional[str] = None, dry_run: bool = False, name: Optional[str] = None) -> Dict[str, Any]:
        """Stores the sessions of a log as an application keeps it: text or bytes (JSONL sessions, a saved chat, a
        transcript, a trace: any format `skillsmith ingest` reads), or records (a list or a dict, sent as JSON).

        `format`: the log's format (default auto); `judge`: rule | llm | off, the outcome judge for sessions without
        one (default: the server's capture.judge); `dry_run`: store nothing and say what would be stored; `name`:
        what problems call the log. Returns what `skillsmith ingest --json` prints. A rejected record raises
        SkillsmithError 422 naming it, with `.body` the same result (every valid record was stored).
        """
        if isinstance(log, str):
            data, content_type = log.encode("utf-8"), "text/plain; charset=utf-8"
        elif isinstance(log, (bytes, bytearray)):
            data, content_type = bytes(log), "text/plain; charset=utf-8"
        else:
            data, content_type = json.dumps(log).encode("utf-8"), "application/json"
        query = _drop_none({"format": format, "judge": judge, "dryRun": "true" if dry_run else None, "name": name})
        path = "/api/ingest" + (f"?{urllib.parse.urlencode(query)}" if query else "")
        return self._request("POST", path, data=data, content_type=content_type)

    def ingest_file(self, path: Union[str, "os.PathLike[str]"], *, format: Optional[str] = None,
                    judge: Optional[str] = None, dry_run: bool = False, name: Optional[str] = None) -> Dict[str, Any]:
        """`ingest` of a file's content, named by its file name unless `name` is given."""
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise SkillsmithError(0, f"cannot read {os.fspath(path)}: {e.strerror or e}") from None
        return self.ingest(data, format=format, judge=judge, dry_run=dry_run,
                           name=name or os.path.basename(os.fspath(path)))

    # ── events ───────────────────────────────────────────────────────────────

    def events(self, after: int = 0, limit: Optional[int] = None) -> List[Dict[str, Any]]:
        """The stored skill events after event id `after`, oldest first (up to `limit`, at most 500; default 100):
        each `{"id", "namespace", "at", "type", "skillId", "payload"}`. Pass the last id seen to read on."""
        query = _drop_none({"after": after, "limit": limit})
        return self._request("GET", "/api/events?" + urllib.parse.urlencode(query))

    def stream_events(self, after: Optional[int] = None, *, timeout: Optional[float] = 30.0,
                      limit: Optional[int] = None) -> Iterator[Dict[str, Any]]:
        """Yields skill events as the server sends them (its server-sent event stream), oldest first.

        `after`: start after this event id (the events stored since come first); None: only events from now on.
        Ends when no event has come for `timeout` seconds (about: the server says it is alive every 5 s), or after
        `limit` events; None for both reads until the loop breaks. A stream the server ends (it stopped) raises
        SkillsmithError 0: resume with `after` the last id yielded.
        """
        path = "/api/events/stream" + (f"?after={int(after)}" if after is not None else "")
        res = self._open("GET", path, accept="text/event-stream", timeout=timeout)
        try:
            kind = res.headers.get("Content-Type", "")
            if not kind.startswith("text/event-stream"):
                raise SkillsmithError(res.status, f"the answer from {self.base_url}{path} is not an event stream ({kind or 'no Content-Type'})")
            count = 0
            last = time.monotonic()
            event: Dict[str, str] = {}
            data: List[str] = []
            while limit is None or count < limit:
                if timeout is not None and time.monotonic() - last >= timeout:
                    return
                try:
                    raw = res.readline()
                except socket.timeout:
                    return
                except (OSError, http.client.HTTPException) as e:
                    raise SkillsmithError(0, f"the event stream from {self.base_url} broke: {type(e).__name__}: {e}") from None
                if not raw:
                    raise SkillsmithError(0, f"the event stream from {self.base_url} ended: the server closed it")
                line = raw.decode("utf-8", "replace").rstrip("\r\n")
                if line.startswith(":"):
                    continue  # a comment: the server saying it is alive
                if line:
                    field, _, value = line.partition(":")
                    value = value[1:] if value.startswith(" ") else value
                    if field == "data":
                        data.append(value)
                    else:
                        event[field] = value
                    continue
                # A blank line ends an event. `ready` opens the stream; every other event is a stored skill event.
                if data and event.get("event") != "ready":
                    try:
                        parsed = json.loads("\n".join(data))
                    except ValueError:
                        raise SkillsmithError(res.status, f"an event from {self.base_url}{path} is not JSON: {data[0][:200]!r}") from None
                    yield parsed
                    count += 1
                    last = time.monotonic()
                event, data = {}, []
        finally:
            res.close()

    # ── forgetting ───────────────────────────────────────────────────────────

    def forget_session(self, session_id: str) -> Dict[str, Any]:
        """Deletes a session's goal, calls and results; skills learned from it keep a forgotten-parent marker."""
        path = f"/api/sessions/{_q(session_id)}"
        return _field(self._request("DELETE", path), "forgotten", self.base_url + path)["forgotten"]

    def forget_sessions(self, older_than: Optional[str] = None, *, before: Optional[str] = None,
                        dry_run: bool = False) -> Dict[str, Any]:
        """Retention: forgets, as `forget_session` does, every session that ended more than `older_than` ago ("90d",
        "12w", "36h") or before `before` (a date, "2026-09-01", or an ISO time); give one of them. A session still
        open counts from its last call, else its start. `dry_run`: list them, forget nothing. Returns `{"before",
        "dryRun", "forgotten": [{"id", "at", "ref", "calls", "skills"}], "undated": [ids kept: no readable date]}`."""
        body: Dict[str, Any] = _drop_none({"olderThan": older_than, "before": before})
        if dry_run:
            body["dryRun"] = True
        return self._request("POST", "/api/sessions/forget", body)

    def forget_skill(self, name: str) -> Dict[str, Any]:
        """Deletes a skill with its versions, lineage and track record; it is never recalled again."""
        path = f"/api/skills/{_q(name)}"
        return _field(self._request("DELETE", path), "forgotten", self.base_url + path)["forgotten"]

    # ── the catalogue ────────────────────────────────────────────────────────

    def rename_skill(self, name: str, new_name: str, *, force: bool = False) -> Dict[str, Any]:
        """Gives a learned skill another name, kept by later learning passes: the skill as it is now, with
        `changed` False when it had the name already or a retried rename finds it done. `force`: take a name
        another skill had before a person renamed it."""
        body = {"name": new_name, "force": True} if force else {"name": new_name}
        return self._request("PATCH", f"/api/skills/{_q(name)}", body)

    def enable_skill(self, name: str) -> Dict[str, Any]:
        """Lets recall serve a skill again: the skill as it is now (`enabled` True; a skill enabled already stays so).
        An unknown name is refused (404)."""
        return self._request("PATCH", f"/api/skills/{_q(name)}", {"enabled": True})

    def disable_skill(self, name: str) -> Dict[str, Any]:
        """Keeps recall from serving a skill (it stays in the catalogue, and learning passes still see it): the skill
        as it is now (`enabled` False). An unknown name is refused (404)."""
        return self._request("PATCH", f"/api/skills/{_q(name)}", {"enabled": False})

    def promote_skill(self, name: str) -> Dict[str, Any]:
        """Promotes an imported skill into the internal corpus, so recall can serve it: the skill as it is now.
        A skill that is internal already (learned here, or promoted before) is refused (409)."""
        return self._request("POST", f"/api/skills/{_q(name)}/promote")

    def edit_skill(self, name: str, skill_md: str) -> Dict[str, Any]:
        """A person's correction of a learned skill: `skill_md` is its whole SKILL.md as edited, served by recall from
        now on and kept by later learning passes. `{"skill", "changed", "why"?, "warnings", "redacted"}`: an empty text,
        or the one it has, changes nothing; a name other than the skill's is refused (400: rename it instead)."""
        return self._request("PUT", f"/api/skills/{_q(name)}/SKILL.md", data=skill_md.encode("utf-8"),
                             content_type="text/markdown; charset=utf-8")

    def revert_skill(self, name: str) -> Dict[str, Any]:
        """Hands a skill a person edited back to the learner: the text the last learning pass wrote, under its current
        name and counts; the next pass may rewrite it. Same answer as `edit_skill`."""
        return self._request("POST", f"/api/skills/{_q(name)}/revert")

    def export_skills(self, names: Optional[List[str]] = None, *, external: bool = False,
                      path: Union[str, "os.PathLike[str]", None] = None) -> SkillsZip:
        """A zip of `<name>/SKILL.md` for the live learned skills (or only `names`; `external`: imported ones too),
        as bytes; written to `path` as well when given. A name that is no live skill's is refused (404)."""
        query = _drop_none({"names": ",".join(names) if names else None, "external": "true" if external else None})
        where = "/api/skills.zip" + (f"?{urllib.parse.urlencode(query)}" if query else "")
        status, headers, data = self._fetch("GET", where, accept="application/zip")
        if not data.startswith(b"PK"):
            raise SkillsmithError(status, f"the answer from {self.base_url}{where} is not a zip archive: {data[:200]!r}")
        archive = SkillsZip(data)
        archive.skipped = [n for n in headers.get("X-Skillsmith-Skipped", "").split(",") if n]
        if path is not None:
            _write(path, data)
        return archive

    # ── transport ────────────────────────────────────────────────────────────

    def _request(self, method: str, path: str, body: Any = None, *, data: Optional[bytes] = None,
                 content_type: Optional[str] = None) -> Any:
        """A JSON answer: `body` is sent as JSON, or `data` as it is."""
        if body is not None:
            data, content_type = json.dumps(body).encode("utf-8"), "application/json"
        status, _, raw = self._fetch(method, path, data, content_type)
        text = raw.decode("utf-8", "replace")
        try:
            return json.loads(text) if text else None
        except ValueError:
            raise SkillsmithError(status, f"the answer from {self.base_url}{path} is not JSON: {text[:200]!r}") from None

    def _fetch(self, method: str, path: str, data: Optional[bytes] = None, content_type: Optional[str] = None,
               accept: str = "application/json") -> Tuple[int, Any, bytes]:
        """The status, headers and whole body of a successful answer."""
        res = self._open(method, path, data, content_type, accept)
        try:
            with res:
                return res.status, res.headers, res.read()
        except (OSError, http.client.HTTPException) as e:
            raise SkillsmithError(0, f"no answer from {self.base_url}: {type(e).__name__}: {e}") from None

    def _open(self, method: str, path: str, data: Optional[bytes] = None, content_type: Optional[str] = None,
              accept: str = "application/json", timeout: Any = _UNSET) -> Any:
        """The open answer of a request the server took (2xx); any other a SkillsmithError."""
        headers = {"Accept": accept}
        if data is not None:
            headers["Content-Type"] = content_type or "application/octet-stream"
        if method not in ("GET", "HEAD"):
            headers[CSRF_HEADER] = "1"
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        req = urllib.request.Request(self.base_url + path, data=data, headers=headers, method=method)
        wait = self.timeout if timeout is _UNSET else timeout
        # Every failure is a SkillsmithError, so an agent that catches it to keep running does keep running.
        try:
            if wait is None:
                return urllib.request.urlopen(req)
            return urllib.request.urlopen(req, timeout=wait)
        except urllib.error.HTTPError as e:
            raw = e.read().decode("utf-8", "replace")
            try:
                parsed = json.loads(raw)
            except ValueError:
                parsed = None
            code = parsed.get("code") if isinstance(parsed, dict) and isinstance(parsed.get("code"), str) else None
            raise SkillsmithError(e.code, _error_text(parsed, raw), parsed if isinstance(parsed, dict) else None,
                                  code) from None
        except urllib.error.URLError as e:
            raise SkillsmithError(0, f"cannot reach {self.base_url}: {e.reason}") from None
        except (OSError, http.client.HTTPException) as e:
            # A timeout, a connection closed without an answer, a malformed status line.
            raise SkillsmithError(0, f"no answer from {self.base_url}: {type(e).__name__}: {e}") from None


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


def _field(data: Any, key: str, where: str) -> Dict[str, Any]:
    """An answer that must be an object holding `key`; anything else (a proxy's page, another server) is a SkillsmithError."""
    if not isinstance(data, dict) or key not in data:
        raise SkillsmithError(200, f"the answer from {where} has no {key!r}: {json.dumps(data)[:200]}")
    return data


def _page(data: Any, where: str) -> Page:
    """A paged answer `{"total", "limit", "offset", "items"}` as a Page; any other a SkillsmithError."""
    if not isinstance(data, dict) or not isinstance(data.get("items"), list):
        raise SkillsmithError(200, f"the answer from {where} is not a page of items: {json.dumps(data)[:200]}")
    page = Page(data["items"])
    page.total, page.limit, page.offset = data.get("total"), data.get("limit"), data.get("offset")
    return page


def _write(path: Union[str, "os.PathLike[str]"], data: bytes) -> None:
    try:
        with open(path, "wb") as f:
            f.write(data)
    except OSError as e:
        raise SkillsmithError(0, f"cannot write {os.fspath(path)}: {e.strerror or e}") from None


def _error_text(parsed: Any, raw: str) -> str:
    """What an error answer says: its `error`, else the problems it names (an ingest's 422), else the body."""
    if not isinstance(parsed, dict):
        return raw
    if "error" in parsed:
        return str(parsed["error"])
    problems = parsed.get("problems")
    if isinstance(problems, list) and problems:
        said = []
        for p in problems[:3]:
            if isinstance(p, dict):
                where = " line ".join(str(x) for x in (p.get("file"), p.get("line")) if x is not None)
                said.append(f"{where}: {p.get('reason')}" if where else str(p.get("reason")))
            else:
                said.append(str(p))
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        count = f"{len(problems)} record{'s' if len(problems) > 1 else ''} rejected"
        return f"{count}: " + "; ".join(said) + more
    return raw

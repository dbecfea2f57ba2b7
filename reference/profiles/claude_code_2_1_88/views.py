"""The seed profile's views: ``chain`` (what is resumed), ``state`` (what is restored), ``api``.

Each view is a function of the Rebuild: the seed pipeline's outcome for ``options.entry``,
left by the read stage in ``Source.found`` (the bytes are loaded once).
"""

from __future__ import annotations

from typing import Any

from rechain.reference.graph import ReaderError
from rechain.reference.js.values import UNDEFINED, as_stringified, prop, truthy
from rechain.reference.model import Json, Rebuild
from rechain.reference.profiles.claude_code_2_1_88.api import to_api
from rechain.reference.profiles.claude_code_2_1_88.load import Loaded, mkey
from rechain.reference.profiles.claude_code_2_1_88.pipeline import Outcome
from rechain.reference.profiles.claude_code_2_1_88.read import hidden_from_continue
from rechain.reference.profiles.claude_code_2_1_88.resume import DEFAULT_ENTRY, first_prompt_fails

PROFILE_NAME = "claude-code@2.1.88"


def _header(outcome: Outcome, view: str, session_id: str | None) -> Json:
    leaf = outcome.leaf
    return {
        "profile": outcome.release.profile_name,
        "view": view,
        "entry": outcome.entry,
        "session_id": session_id,
        "leaf": leaf.get("uuid") if leaf is not None else None,
        "error": outcome.error,
    }


def resumed_message(entry: Json) -> Json:
    """One deserialised message: type, uuid (null when synthetic), content and flags."""
    out: Json = {"type": entry.get("type"), "uuid": entry.get("uuid")}
    if "synthetic" in entry:
        out["synthetic"] = entry["synthetic"]
    if entry.get("type") == "attachment":
        out["attachment"] = entry.get("attachment")
    elif entry.get("type") == "system":
        out["subtype"] = entry.get("subtype")
    else:
        out["message"] = entry.get("message")
    if truthy(entry.get("isMeta")):
        out["isMeta"] = True
    return out


def written(entry: Json) -> bool:
    """Whether a resumed message is written back: not a user or assistant row with ``[]``.

    2.1.88 keeps such a row in the conversation (the request still carries it) but
    does not record it, wherever it sits; the next row is linked to the previous
    recorded one (rule 26).
    """
    return not (entry.get("type") in ("user", "assistant")
                and prop(entry.get("message", UNDEFINED), "content") == [])


def _outcome(result: Rebuild) -> Outcome:
    """The seed pipeline's outcome the read stage kept (a run that never got there: none)."""
    found = result.run.source.found if result.run is not None else None
    return found if isinstance(found, Outcome) else Outcome(DEFAULT_ENTRY, Loaded())


def chain_view(result: Rebuild) -> Json:
    """The leaf, the walked-and-recovered chain, and the resumed messages as recorded."""
    outcome, session_id = _outcome(result), result.session_id
    loaded = outcome.loaded
    release = outcome.release
    return {
        **_header(outcome, "chain", session_id),
        "chain": [{"uuid": e.get("uuid"), "type": e.get("type"), "line": loaded.line_of(e)}
                  for e in outcome.chain],
        # the fork writes each row with JSON.stringify: big integers come back rounded
        "messages": as_stringified([resumed_message(e) for e in outcome.resumed.messages
                                    if written(e) or not release.empty_rows_not_written]),
        "interruption": outcome.resumed.interruption,
        "diagnostics": [d.to_json() for d in loaded.diagnostics],
    }


def _by_session(table: dict[Any, Any], session: Any) -> Any:
    value = table.get(mkey(session), UNDEFINED)
    return None if value is UNDEFINED else value


def file_history_chain(loaded: Loaded, chain: list[Json]) -> list[Any]:
    """``buildFileHistorySnapshotChain``: snapshots along the chain, updates in place."""
    snapshots: list[Any] = []
    where: dict[Any, int] = {}
    for entry in chain:
        found = loaded.file_history.get(mkey(entry.get("uuid", UNDEFINED)))
        if found is None:
            continue
        snapshot = prop(found, "snapshot")
        message_id = mkey(prop(snapshot, "messageId"))
        if truthy(prop(found, "isSnapshotUpdate")) and message_id in where:
            snapshots[where[message_id]] = snapshot
            continue
        where[message_id] = len(snapshots)
        snapshots.append(snapshot)
    return snapshots


def invoked_skills(chain: list[Json]) -> list[Json]:
    """Skills restored from ``invoked_skills`` attachments (name, path and content all set)."""
    skills: list[Json] = []
    for entry in chain:
        if entry.get("type") != "attachment":
            continue  # read first: a row kept undecoded answers it without decoding
        attachment = entry.get("attachment")
        if prop(attachment, "type") != "invoked_skills":
            continue
        listed = prop(attachment, "skills")
        for skill in listed if type(listed) is list else []:
            if all(truthy(prop(skill, k)) for k in ("name", "path", "content")):
                skills.append({"name": skill["name"], "path": skill["path"]})
    return skills


# which restored fields each entry point fills, and from which session id ("leaf" = the
# leaf's sessionId, "file" = the id the session was opened by); --resume <file>.jsonl
# returns messages only, so it restores none of them
RESTORED_BY_ENTRY: dict[str, dict[str, str]] = {
    "continue": {"customTitle": "leaf", "tag": "leaf", "agentName": "leaf",
                 "agentColor": "leaf", "agentSetting": "leaf", "mode": "leaf",
                 "worktreeSession": "leaf", "prLink": "leaf"},
    "resume-id": {"customTitle": "leaf", "tag": "leaf", "agentSetting": "file",
                  "worktreeSession": "file"},
    "resume-file": {},
}
TABLES = {"customTitle": "custom_titles", "tag": "tags", "agentName": "agent_names",
          "agentColor": "agent_colors", "agentSetting": "agent_settings", "mode": "modes",
          "worktreeSession": "worktree_states", "prLink": "pr_links"}


def state_view(result: Rebuild) -> Json:
    """What a resume restores besides messages (which fields depends on the entry point)."""
    outcome, session_id = _outcome(result), result.session_id
    data = result.run.source.data if result.run is not None else b""
    loaded, leaf = outcome.loaded, outcome.leaf
    sources = RESTORED_BY_ENTRY[outcome.entry]
    leaf_session = leaf.get("sessionId", UNDEFINED) if leaf is not None else UNDEFINED
    if leaf is None and outcome.entry == "continue" and not hidden_from_continue(
            data, outcome.release):
        # a listed session with no conversation: restored by the listed file's id
        leaf_session = session_id if session_id is not None else UNDEFINED
    state: Json = {"summary": None}
    if leaf is not None and outcome.entry != "resume-file":
        state["summary"] = _by_session(loaded.summaries, leaf.get("uuid"))
    for name, table in TABLES.items():
        source = sources.get(name)
        owner = leaf_session if source == "leaf" else session_id
        state[name] = _by_session(getattr(loaded, table), owner) if source else None
    restores_history = outcome.entry != "resume-file"
    state["fileHistorySnapshots"] = (file_history_chain(loaded, outcome.chain)
                                     if restores_history else [])
    state["todos"] = outcome.todos
    state["invokedSkills"] = invoked_skills(outcome.chain)
    state["interruption"] = outcome.resumed.interruption
    return {**_header(outcome, "state", session_id), "state": state}


def api_view(result: Rebuild) -> Json:
    """The ``messages`` of the first model request after the resume (harness text left out).

    Building the request can throw where loading did not (an attachment 2.1.88
    cannot render): ``error`` says so and no request is made.
    """
    outcome = _outcome(result)
    header = _header(outcome, "api", result.session_id)
    if outcome.error is not None:
        return {**header, "messages": []}
    try:
        if (outcome.entry == "resume-file" and outcome.release.resume_file_walks_chain
                and first_prompt_fails(outcome.resumed.messages)):
            # --resume <file>.jsonl scans the deserialised messages, after the fork wrote
            # them and the prompt: exit 1, no request (rule 24)
            raise ReaderError("first prompt: text.trim is not a function (TypeError)")
        messages = to_api(outcome.resumed.messages, release=outcome.release)
    except ReaderError as error:
        return {**header, "error": f"request fails: {error}", "messages": []}
    # sent as JSON.stringify writes it: an integer beyond a double's digits is rounded
    return {**header, "messages": as_stringified(messages)}


VIEWS = {"chain": chain_view, "state": state_view, "api": api_view}

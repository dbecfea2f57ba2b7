"""The Claude Code release family: a profile per verified release, built from switches."""

from __future__ import annotations

import json

import pytest

from rechain.cli import main
from rechain.conformance.oracles.claude_cli import ClaudeCliOracle
from rechain.conformance.oracles.registry import get as get_oracle
from rechain.reference import get_profile
from rechain.reference.model import UsageError
from rechain.reference.profiles.claude_code_2_1_88.release import SeedRelease
from rechain.reference.profiles.family import (
    CLI_RANGE,
    SEED_RANGE,
    SEED_SWITCHES,
    SWITCHES,
    cli_release,
    in_seed_line,
    is_answered,
    profile_for,
    seed_release,
    verified_releases,
    version_tuple,
)


def _before(version: str) -> str:
    major, minor, patch = version_tuple(version)
    return f"{major}.{minor}.{patch - 1}"


@pytest.mark.parametrize("switch", SWITCHES, ids=lambda s: s.field)
def test_each_switch_turns_on_at_its_first_release(switch) -> None:
    assert getattr(cli_release(switch.first), switch.field) is True
    assert getattr(cli_release(_before(switch.first)), switch.field) is False


@pytest.mark.parametrize("switch", SEED_SWITCHES, ids=lambda s: s.field)
def test_each_switch_of_the_2_1_88_line_turns_on_at_its_first_release(switch) -> None:
    assert getattr(seed_release(switch.first), switch.field) is True
    assert getattr(seed_release(_before(switch.first)), switch.field) is False
    # SeedRelease() is 2.1.88 (the seed profile itself): a switch of a change before
    # 2.1.88 defaults on, one after it off
    before_2_1_88 = version_tuple(switch.first) <= version_tuple("2.1.88")
    assert getattr(SeedRelease(), switch.field) is before_2_1_88
    assert seed_release("2.1.88") == SeedRelease()


def test_a_release_of_the_2_1_88_line_is_the_2_1_88_loader_with_its_switches() -> None:
    newest = get_profile(f"claude-code@{SEED_RANGE[1]}")
    assert newest.name == f"claude-code@{SEED_RANGE[1]}"
    assert newest.views is get_profile("claude-code@2.1.88").views
    assert in_seed_line(newest.name) and not in_seed_line(f"claude-code@{CLI_RANGE[0]}")
    assert not in_seed_line("agent-sdk@0.3.332") and not in_seed_line("claude-code@2.1")


def test_the_bridge_switch_changes_what_a_dangling_parent_resumes() -> None:
    from rechain.corpus import load_cases
    from rechain.reference import Options, rebuild

    case = next(c for c in load_cases() if c.id == "seed-progress-written-after-child")
    data, entry = case.input_bytes(), Options(entry="resume-id")
    before = rebuild(data, "claude-code@2.1.88", entry, session_id=case.session_id)
    after = rebuild(data, "claude-code@2.1.91", entry, session_id=case.session_id)
    assert len(after.view("chain")["chain"]) > len(before.view("chain")["chain"])
    assert after.view("chain")["profile"] == "claude-code@2.1.91"


@pytest.mark.parametrize(("case_id", "before", "after"), [
    ("cli-compact-boundary-starts-chain", "2.1.107", "2.1.108"),
    ("seed-whitespace-fragment-with-content", "2.1.110", "2.1.111"),
])
def test_a_switch_found_between_2_1_101_and_2_1_112_changes_the_chain(case_id, before,
                                                                      after) -> None:
    """The releases either side of a switch resume the case differently, and the later one
    as 2.1.112 recorded it (the earlier as 2.1.101 did, where recorded)."""
    from rechain.corpus import load_cases
    from rechain.reference import Options, rebuild

    case = next(c for c in load_cases() if c.id == case_id)
    data, entry = case.input_bytes(), Options(entry="resume-id")

    def uuids(version: str) -> list[object]:
        chain = rebuild(data, f"claude-code@{version}", entry, session_id=case.session_id)
        return [m.get("uuid") for m in chain.view("chain")["messages"]]

    def recorded(version: str) -> list[object] | None:
        found = [e for e in case.expectations_for(f"claude-code@{version}", "resumed-chain")
                 if e.options.get("entry") == "resume-id"]
        return [m.get("uuid") for m in found[0].messages] if found else None

    assert uuids(before) != uuids(after)
    assert recorded("2.1.112") == uuids(after)
    assert recorded("2.1.101") in (None, uuids(before))


def test_the_newest_release_is_the_pinned_profile_and_2_1_88_its_own() -> None:
    assert get_profile(f"claude-code@{CLI_RANGE[1]}").name == "claude-code@2.1.332"
    assert get_profile("claude-code@2.1.88").name == "claude-code@2.1.88"
    assert profile_for(CLI_RANGE[0]).name == f"claude-code@{CLI_RANGE[0]}"


@pytest.mark.parametrize("version", ["2.1.87", "2.1.40", "2.0.77", "2.0.75", "2.1.200",
                                     "1.0.98", "2.2.0", "9.9.9"])
def test_a_release_outside_what_was_verified_is_a_clear_error(version: str) -> None:
    with pytest.raises(UsageError, match="not a verified release"):
        get_profile(f"claude-code@{version}")


def test_a_malformed_release_is_a_clear_error() -> None:
    with pytest.raises(UsageError, match="three numbers"):
        get_profile("claude-code@2.1")


def test_history_lists_the_verified_releases_and_the_switch_points_in_order() -> None:
    releases = [v for v, _ in verified_releases()]
    assert releases == sorted(releases, key=version_tuple)
    for switch in SWITCHES:  # a change below the answered range waits for its extension
        assert switch.first in releases or not is_answered(switch.first)


# the cases the native line's switches below 2.1.285 show on (docs/changes.md)
SWITCH_CASES = ("cli-trailing-call-interrupted", "seed-trailing-tool-result-continue",
                "parallel-tools-stray-results", "cli-bridge-skips-result-of-chain-call",
                "compaction-preserved-messages-not-a-list", "cli-tip-recovered-result",
                "cli-empty-text-block-dropped", "seed-assistant-string-content-fails")
LIVE = [v for v in [s.first for s in SWITCHES] + [_before(s.first) for s in SWITCHES]
        + [CLI_RANGE[0]] if is_answered(v)]


@pytest.mark.oracle
@pytest.mark.parametrize("version", sorted(set(LIVE), key=version_tuple))
def test_each_switch_release_agrees_with_the_real_release(version: str, capsys) -> None:
    reason = ClaudeCliOracle.available(get_oracle(f"claude-code@{version}"))
    if reason is not None:
        pytest.skip(reason)
    code = main(["check", "--impl", f"reference:claude-code@{version}", "--against",
                 f"claude-code@{version}", "--profile", "cli", "--examples", "0",
                 "--no-shrink", "--no-progress", "--timeout", "120", "--case", "voice-call-*",
                 "--case", "real-spotter-*", "--case", "meta-origin-kinds",
                 *(arg for case in SWITCH_CASES for arg in ("--case", case))])
    out = capsys.readouterr().out
    assert code == 0, out


def test_a_release_the_family_answers_has_a_recorder_and_others_do_not() -> None:
    from rechain.conformance.record import Request, record
    from rechain.errors import UsageError as CliUsageError
    from rechain.reference.profiles.family import in_cli_line

    assert in_cli_line(f"claude-code@{CLI_RANGE[0]}") and in_seed_line("claude-code@2.1.91")
    for outside in ("claude-code@1.0.0", "claude-code@2.1.333", "claude-code@9.9.9"):
        assert not in_cli_line(outside) and not in_seed_line(outside)
        with pytest.raises(CliUsageError, match="no recorder"):
            record(outside, Request(None))


def test_the_last_written_leaf_counts_an_attachment_written_under_an_older_leaf() -> None:
    """2.1.101's --continue resumes the leaf whose terminal row was written last: an
    attachment written last under a1 makes a1 the leaf (the real 2.1.101 resumed u1 a1 on
    this case; 2.1.88 the newer branch)."""
    from rechain.corpus import load_cases
    from rechain.reference import Options, rebuild

    case = next(c for c in load_cases() if c.id == "fork-briefing-attachment")
    data = case.input_bytes()
    lines = data.splitlines()
    under = json.loads(lines[-1])["parentUuid"]
    for release, leaf in (("2.1.101", under), ("2.1.88", json.loads(lines[3])["uuid"])):
        chain = rebuild(data, f"claude-code@{release}", Options(entry="continue"),
                        session_id=case.session_id).view("chain")
        assert chain["leaf"] == leaf, release


@pytest.mark.parametrize("case_id", ["cycle-full", "sidechain-child-of-leaf"])
def test_from_2_1_101_resume_id_finds_no_conversation_without_a_main_chain_end(case_id) -> None:
    """A full cycle has no row without a child, and a leaf with a sidechain child is no end:
    the real 2.1.101 exits 1 "No conversation found" on both; 2.1.88 resumes them."""
    from rechain.corpus import load_cases
    from rechain.reference import Options, rebuild

    case = next(c for c in load_cases() if c.id == case_id)
    for release, error in (("2.1.101", "no-conversation"), ("2.1.88", None)):
        chain = rebuild(case.input_bytes(), f"claude-code@{release}", Options(entry="resume-id"),
                        session_id=case.session_id).view("chain")
        assert chain["error"] == error, release


def test_from_2_1_101_a_queued_task_notification_carries_the_system_notice() -> None:
    """What the real 2.1.101 sent for this case (2.1.100 still the older words)."""
    from rechain.corpus import load_cases
    from rechain.reference import Options, rebuild

    case = next(c for c in load_cases() if c.id == "queued-command-meta-and-origin")
    sent = {}
    for release in ("2.1.100", "2.1.101"):
        api = rebuild(case.input_bytes(), f"claude-code@{release}", Options(entry="resume-id"),
                      session_id=case.session_id).view("api")
        sent[release] = json.dumps(api["messages"])
    assert "[SYSTEM NOTIFICATION - NOT USER INPUT]" in sent["2.1.101"]
    assert "[SYSTEM NOTIFICATION" not in sent["2.1.100"]
    assert "A background agent completed a task:" in sent["2.1.100"]


def test_an_older_release_s_context_block_is_taken_out_of_its_answer() -> None:
    """2.1.120 to 2.1.267 open the first user message with the harness's context block (as
    2.1.120 sent it on ``cli-leaf-last-written-row``); a message holding only the block
    (the chain starts at an assistant) goes whole; other messages are left as they are."""
    from rechain.conformance.oracles.cli_context import CONTEXT_PREFIX, without_context

    block = {"type": "text", "text": CONTEXT_PREFIX + "\n# currentDate\n</system-reminder>\n\n"}
    sent = [{"role": "user", "content": [block, {"type": "text", "text": "u1"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "a2"}]}]
    assert without_context(sent) == [{"role": "user", "content": [{"type": "text",
                                                                   "text": "u1"}]}, sent[1]]
    alone = [{"role": "user", "content": block["text"]}, sent[1]]
    assert without_context(alone) == [sent[1]]
    later = [sent[1], {"role": "user", "content": [block]}]
    assert without_context(later) == later

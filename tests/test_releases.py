"""Any published release as an oracle: names, versions, `latest` and the registry's lists."""

from __future__ import annotations

import json

import pytest

from rechain.conformance.impls import connect
from rechain.conformance.oracles.claude_cli import chained_to, release_settings
from rechain.conformance.oracles.registry import (
    AGENT_SDK_PY,
    AGENT_SDK_TS,
    CLAUDE_CODE,
    get,
    latest_record,
    release,
)
from rechain.conformance.oracles.releases import between, parse_npm_versions, parse_pip_versions
from rechain.errors import UsageError


def test_pinned_names_and_their_slugs_are_the_pinned_specs() -> None:
    assert get("agent-sdk-ts") is AGENT_SDK_TS
    assert get(f"agent-sdk-ts@{AGENT_SDK_TS.version}") == AGENT_SDK_TS
    assert get(f"claude-code@{CLAUDE_CODE.version}") == CLAUDE_CODE


def test_another_release_keeps_the_installer_and_changes_the_version() -> None:
    spec = get("agent-sdk-ts@0.3.333")
    assert (spec.installer, spec.package, spec.version) == ("npm", AGENT_SDK_TS.package,
                                                            "0.3.333")
    spec = get("agent-sdk-py@0.2.100")
    assert (spec.installer, spec.version, spec.entry) == ("venv", "0.2.100", AGENT_SDK_PY.entry)


def test_claude_code_js_bundles_up_to_2_1_112_then_native_binaries() -> None:
    assert get("claude-code@2.1.112").installer == "npm-pack"
    assert get("claude-code@1.0.98").installer == "npm-pack"
    native = get("claude-code@2.1.113")
    assert native.installer == "npm-native"
    assert native.package == "@anthropic-ai/claude-code-linux-x64"


@pytest.mark.parametrize("name", ["agent-sdk-ts@1.2", "claude-code@v2.1.0", "agent-sdk-py@x",
                                  "nothing@1.2.3"])
def test_a_bad_version_or_name_is_one_usage_error(name: str) -> None:
    with pytest.raises(UsageError):
        get(name)


def test_latest_is_what_the_last_install_resolved(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("RECHAIN_CACHE", str(tmp_path))
    with pytest.raises(UsageError, match="rechain oracle install agent-sdk-ts@latest"):
        get("agent-sdk-ts@latest")
    latest_record("agent-sdk-ts").parent.mkdir(parents=True)
    latest_record("agent-sdk-ts").write_text(json.dumps({"version": "0.3.340"}))
    assert get("agent-sdk-ts@latest") == release("agent-sdk-ts", "0.3.340")


def test_an_uninstalled_release_says_how_to_install_it(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("RECHAIN_CACHE", str(tmp_path))
    with pytest.raises(UsageError, match=r"rechain oracle install agent-sdk-ts@0\.3\.301"):
        connect("agent-sdk-ts@0.3.301")
    with pytest.raises(UsageError, match=r"rechain oracle install claude-code@2\.1\.101"):
        connect("claude-code@2.1.101")


def test_registry_lists_are_parsed_numerically_without_prereleases() -> None:
    npm = json.dumps(["2.1.9", "2.1.10", "2.1.100", "2.2.0-beta.1", "1.0.98"])
    assert parse_npm_versions(npm) == ["1.0.98", "2.1.9", "2.1.10", "2.1.100"]
    assert parse_npm_versions(json.dumps("0.3.1")) == ["0.3.1"]
    pip = "claude-agent-sdk (0.2.189)\nAvailable versions: 0.2.189, 0.2.10, 0.2.9, 0.3.0rc1\n"
    assert parse_pip_versions(pip) == ["0.2.9", "0.2.10", "0.2.189"]
    assert between(["2.1.88", "2.1.90", "2.1.91", "2.1.101"], "2.1.88", "2.1.101") == [
        "2.1.90", "2.1.91", "2.1.101"]


def test_old_releases_get_a_long_cleanup_period_and_current_ones_nothing() -> None:
    assert release_settings("1.0.98") == {"cleanupPeriodDays": 100000}
    assert release_settings("2.0.76") == {}


def test_rows_copied_from_the_transcript_are_not_counted_as_appended() -> None:
    # 1.0.x writes the resumed chain into a new file with the same uuids, then the prompt
    copied = [{"uuid": "u1", "parentUuid": None, "type": "user"},
              {"uuid": "a1", "parentUuid": "u1", "type": "assistant"}]
    prompt = {"uuid": "p", "parentUuid": "a1", "type": "user",
              "message": {"role": "user", "content": "next"}}
    assert chained_to([*copied, prompt], "next", frozenset({"u1", "a1"})) == ("a1", "a1")
    assert chained_to([*copied, prompt], "next") == ("a1", None)


def test_an_npm_failure_is_told_by_its_first_message_line() -> None:
    from rechain.conformance.oracles.install import last_line

    text = ("npm error code ETARGET\nnpm error notarget No matching version found for x@2.1.320.\n"
            "npm error A complete log of this run can be found in: /root/.npm/_logs/1.log\n")
    assert last_line(text) == "npm error notarget No matching version found for x@2.1.320."
    assert last_line("ERR! one\nERR! two\n") == "ERR! two"

"""Scenarios about the shape of the parent graph: order, rewinds, leaves, cycles, gaps."""

from __future__ import annotations

from rechain.corpus.build import Line, Session, text
from rechain.corpus.scenario import collector, options

SCENARIOS, scenario = collector()


def _turn(s: Session, n: int, parent: str | None, ask: str, answer: str) -> list[Line]:
    """A prompt ``u<n>`` and its one-row reply ``a<n>``."""
    return [s.user(f"u{n}", ask, parent), s.assistant(f"a{n}", [text(answer)], f"u{n}")]


@scenario("linear-two-turns", "basic", variants=[options(system=True)])
def linear_two_turns(s: Session) -> list[Line]:
    """Two prompts and two replies in one straight chain, written in order."""
    return [
        *_turn(
            s,
            1,
            None,
            "What does the retry helper in net/backoff.py do?",
            "It retries with jitter.",
        ),
        *_turn(
            s, 2, "a1", "Cap the delay at 30 seconds.", "Done: the delay is now capped at 30 s."
        ),
    ]


@scenario("lines-out-of-order", "out-of-order", "leaf-choice")
def lines_out_of_order(s: Session) -> list[Line]:
    """A straight chain u1 a1 u2 a2 written as a2 u1 u2 a1: children before their parents."""
    u1, a1 = _turn(s, 1, None, "List the failing tests.", "Two tests fail in test_parser.py.")
    u2, a2 = _turn(s, 2, "a1", "Fix the first one.", "Fixed the off-by-one in parse_header.")
    return [a2, u1, u2, a1]


@scenario("lines-reversed", "out-of-order", "leaf-choice")
def lines_reversed(s: Session) -> list[Line]:
    """Every row written in reverse order, so the root is the last line of the file."""
    rows = [
        *_turn(s, 1, None, "Rename config.yml to settings.yml.", "Renamed."),
        *_turn(s, 2, "a1", "Update the imports too.", "Updated four imports."),
        *_turn(s, 3, "a2", "Run the tests.", "All 112 tests pass."),
    ]
    return rows[::-1]


@scenario("rewind-newer-branch-written-later", "rewind", "leaf-choice")
def rewind_later(s: Session) -> list[Line]:
    """A rewind to a1: the abandoned u2/a2 is written first, the new branch u3/a3 after it."""
    return [
        *_turn(s, 1, None, "Add a --dry-run flag to deploy.sh.", "Added --dry-run."),
        *_turn(s, 2, "a1", "Also push the image.", "Pushed the image to the registry."),
        *_turn(s, 3, "a1", "Actually, only print the push command.", "It now prints the command."),
    ]


@scenario("rewind-newer-branch-written-earlier", "rewind", "leaf-choice", "timestamps")
def rewind_earlier(s: Session) -> list[Line]:
    """Two branches off a1; the one with later timestamps is written first, the older one last."""
    return [
        s.user("u1", "Add a health check endpoint.", None, at=10),
        s.assistant("a1", [text("Added GET /healthz.")], "u1", at=14),
        s.user("u3", "Make it return the build sha.", "a1", at=300),
        s.assistant("a3", [text("It returns the sha now.")], "u3", at=305),
        s.user("u2", "Return 204 instead of 200.", "a1", at=60),
        s.assistant("a2", [text("Returns 204.")], "u2", at=63),
    ]


@scenario("rewind-tied-timestamps", "rewind", "leaf-choice", "timestamps")
def rewind_tied(s: Session) -> list[Line]:
    """Two branches off a1 whose rows carry identical timestamps; file position decides."""
    return [
        s.user("u1", "Summarise CHANGELOG.md.", None, at=5),
        s.assistant("a1", [text("Three releases, mostly fixes.")], "u1", at=9),
        s.user("u2", "Shorter, please.", "a1", at=20),
        s.assistant("a2", [text("Fixes, fixes, fixes.")], "u2", at=24),
        s.user("u3", "In French, please.", "a1", at=20),
        s.assistant("a3", [text("Surtout des corrections.")], "u3", at=24),
    ]


@scenario("rewind-reversed-timestamps", "rewind", "leaf-choice", "timestamps")
def rewind_reversed(s: Session) -> list[Line]:
    """Timestamps that run backwards down the file, with a rewind; position still decides."""
    return [
        s.user("u1", "Why is CI red?", None, at=900),
        s.assistant("a1", [text("The lint step fails on unused imports.")], "u1", at=800),
        s.user("u2", "Remove them.", "a1", at=700),
        s.assistant("a2", [text("Removed 3 unused imports.")], "u2", at=600),
        s.user("u3", "No, add a noqa instead.", "a1", at=500),
        s.assistant("a3", [text("Added noqa comments.")], "u3", at=400),
    ]


@scenario("rewind-three-branches", "rewind", "leaf-choice")
def rewind_three(s: Session) -> list[Line]:
    """Three rewinds to the same prompt; the middle branch is continued last."""
    return [
        s.user("u1", "Draft a commit message for the cache fix.", None),
        s.assistant("a1", [text("fix(cache): evict stale keys")], "u1"),
        s.assistant("b1", [text("cache: stop serving stale keys")], "u1", msg="b1"),
        s.assistant("c1", [text("Fix stale cache keys")], "u1", msg="c1"),
        s.user("u2", "Use the second one and add a body.", "b1"),
        s.assistant("a2", [text("cache: stop serving stale keys\n\nKeys now expire.")], "u2"),
    ]


@scenario(
    "trailing-system-older-branch",
    "leaf-choice",
    "system",
    "rewind",
    variants=[options(system=True)],
)
def trailing_system(s: Session) -> list[Line]:
    """A turn_duration row under a1 is written after the newer branch u2/a2 and picks a1 as leaf."""
    return [
        *_turn(s, 1, None, "Format the SQL in report.sql.", "Formatted."),
        *_turn(s, 2, "a1", "Uppercase the keywords.", "Keywords are uppercase now."),
        s.system("s1", "turn_duration", "a1", durationMs=5120),
    ]


@scenario("trailing-system-on-leaf", "leaf-choice", "system", variants=[options(system=True)])
def trailing_system_on_leaf(s: Session) -> list[Line]:
    """Two system rows hang off the last reply; the leaf walk stops at the reply above them."""
    return [
        *_turn(s, 1, None, "What time zone do the logs use?", "UTC."),
        s.system("s1", "stop_hook_summary", "a1", hookCount=1, hookInfos=[], hookErrors=[]),
        s.system("s2", "turn_duration", "s1", durationMs=1830),
    ]


@scenario("trailing-meta-older-branch", "leaf-choice", "meta", "rewind")
def trailing_meta(s: Session) -> list[Line]:
    """An isMeta user row under a1 is written after the newer branch and becomes the leaf."""
    return [
        *_turn(s, 1, None, "Install the pre-commit hooks.", "Installed."),
        *_turn(s, 2, "a1", "Run them on all files.", "All hooks pass."),
        s.user("m1", "<system-reminder>Hooks changed.</system-reminder>", "a1", isMeta=True),
    ]


@scenario(
    "system-mid-chain", "system", variants=[options(system=True), options(system=True, offset=2)]
)
def system_mid_chain(s: Session) -> list[Line]:
    """A local_command system row sits between two turns; only includeSystemMessages shows it."""
    return [
        *_turn(s, 1, None, "Which branch am I on?", "You are on main."),
        s.system(
            "s1", "local_command", "a1", content="<local-command-stdout>ok</local-command-stdout>"
        ),
        *_turn(s, 2, "s1", "Create feature/retry.", "Created and switched to feature/retry."),
    ]


@scenario("cycle-full", "cycle")
def cycle_full(s: Session) -> list[Line]:
    """Every entry sits on one parent cycle u1 a1 u2 a2, so no leaf exists."""
    return [
        s.user("u1", "Start over.", "a2"),
        s.assistant("a1", [text("Starting over.")], "u1"),
        s.user("u2", "Again.", "a1"),
        s.assistant("a2", [text("Again.")], "u2"),
    ]


@scenario("cycle-leaf-into-cycle", "cycle")
def cycle_leaf_into(s: Session) -> list[Line]:
    """A clean leaf whose ancestors run into a two-entry cycle; the walk stops at the revisit."""
    return [
        s.user("u1", "Profile the importer.", "a1"),
        s.assistant("a1", [text("The importer spends 80% in json.loads.")], "u1"),
        *_turn(s, 2, "a1", "Use orjson.", "Switched to orjson; 3x faster."),
    ]


@scenario("cycle-self-loop", "cycle")
def cycle_self_loop(s: Session) -> list[Line]:
    """The root user row names itself as its parent."""
    return [
        s.user("u1", "Explain the Makefile.", "u1"),
        s.assistant("a1", [text("It has build, test and clean targets.")], "u1"),
    ]


@scenario("cycle-with-progress-terminal", "cycle", "progress", "leaf-choice")
def cycle_with_progress(s: Session) -> list[Line]:
    """A full u1/a1 cycle with a progress row below a1: the fallback leaf search finds a1."""
    return [
        s.user("u1", "Check the disk usage.", "a1"),
        s.assistant("a1", [text("The disk is 71% full.")], "u1"),
        s.progress("p1", "a1", hookName="PostToolUse:Bash", command="notify.sh"),
    ]


@scenario("dangling-parent-root", "dangling-parent")
def dangling_root(s: Session) -> list[Line]:
    """The first prompt's parent was never written (a resumed or trimmed file)."""
    return _turn(s, 1, "lost", "Continue with the migration.", "Migrating table users.")


@scenario("dangling-parent-mid-chain", "dangling-parent")
def dangling_mid(s: Session) -> list[Line]:
    """A prompt in the middle points to a missing row, which cuts the earlier turn off."""
    return [
        *_turn(s, 1, None, "Read the README.", "Read it."),
        *_turn(s, 2, "missing", "Now write the quickstart.", "Wrote docs/quickstart.md."),
    ]


@scenario("dangling-newest-branch", "dangling-parent", "leaf-choice")
def dangling_newest(s: Session) -> list[Line]:
    """The branch written last hangs from a missing row and wins over the complete chain."""
    return [
        *_turn(s, 1, None, "Plan the release.", "Step 1: tag. Step 2: build."),
        *_turn(s, 2, "a1", "Tag it.", "Tagged v1.4.0."),
        *_turn(s, 3, "gone", "Build it.", "Built the wheels."),
    ]


@scenario("progress-in-chain", "progress")
def progress_in_chain(s: Session) -> list[Line]:
    """Hook progress rows link the chain between a tool call, its result and the next reply."""
    return [
        s.user("u1", "Run the linter.", None),
        s.assistant("a1", [s.tool_use("t1", command="ruff check .")], "u1"),
        s.progress("p1", "a1", hookName="PreToolUse:Bash", command="guard.sh"),
        s.result("r1", "t1", "p1", source="a1", output="All checks passed!"),
        s.progress("p2", "r1", hookName="PostToolUse:Bash", command="notify.sh"),
        s.assistant("a2", [text("The linter is clean.")], "p2"),
    ]


@scenario("progress-root-and-trailing", "progress", "leaf-choice")
def progress_root_trailing(s: Session) -> list[Line]:
    """SessionStart progress rows at the root, and a progress row written last under the leaf."""
    return [
        s.progress("p0", None, hookEvent="SessionStart", hookName="SessionStart:startup"),
        s.progress("p1", "p0", hookEvent="SessionStart", hookName="SessionStart:startup"),
        *_turn(s, 1, "p1", "Show me the open TODOs.", "There are 7 TODOs, 3 in cli.py."),
        s.progress("p2", "a1", hookEvent="Stop", hookName="Stop"),
    ]


@scenario("progress-written-after-child", "progress", "out-of-order")
def progress_after_child(s: Session) -> list[Line]:
    """A progress row written after the result that names it as parent."""
    return [
        s.user("u1", "Count the lines of code.", None),
        s.assistant("a1", [s.tool_use("t1", command="cloc src")], "u1"),
        s.result("r1", "t1", "p1", source="a1", output="4210 lines"),
        s.progress("p1", "a1", hookName="PostToolUse:Bash"),
        s.assistant("a2", [text("About 4.2k lines.")], "r1"),
    ]


@scenario("sidechain-in-main-file", "sidechain", "leaf-choice")
def sidechain_inline(s: Session) -> list[Line]:
    """Old-style inline sidechain rows written after the main chain are not the conversation."""
    return [
        s.user("u1", "Find where the config is loaded.", None),
        s.assistant(
            "a1", [s.tool_use("t1", "Task", description="find config", prompt="Search")], "u1"
        ),
        s.user("x1", "Search for the config loader.", None, sidechain=True),
        s.assistant("x2", [text("settings.py: load_config().")], "x1", sidechain=True),
        s.result("r1", "t1", "a1", source="a1", output="settings.py: load_config()"),
        s.assistant("a2", [text("It is loaded in settings.py.")], "r1"),
        s.user("x3", "Also check env vars.", "x2", sidechain=True),
        s.assistant("x4", [text("ORBIT_CONFIG overrides it.")], "x3", sidechain=True),
    ]


@scenario("sidechain-child-of-leaf", "sidechain", "leaf-choice")
def sidechain_child(s: Session) -> list[Line]:
    """The last main reply has only a sidechain child; it stays the leaf over an older branch."""
    return [
        *_turn(s, 1, None, "Benchmark the parser.", "12 MB/s."),
        *_turn(s, 2, "a1", "Profile it.", "Tokenising dominates."),
        s.user("x1", "Profile the tokenizer.", "a2", sidechain=True, agentId="a91c2e7"),
    ]


@scenario("sidechain-only", "sidechain")
def sidechain_only(s: Session) -> list[Line]:
    """A file with sidechain rows only (an agent transcript) has no main conversation."""
    return [
        s.user("x1", "Warmup", None, sidechain=True, agentId="b2f7d10"),
        s.assistant("x2", [text("Ready.")], "x1", sidechain=True, agentId="b2f7d10"),
    ]


@scenario("team-rows", "team", "leaf-choice")
def team_rows(s: Session) -> list[Line]:
    """Rows stamped with teamName, written last, are neither leaves nor output."""
    return [
        *_turn(s, 1, None, "Split the work with the team.", "Created two tasks."),
        s.user("t1", "Task A is done.", "a1", teamName="orbit-crew", agentName="alpha"),
        s.assistant("t2", [text("Noted.")], "t1", teamName="orbit-crew", agentName="alpha"),
    ]


@scenario("fork-briefing-attachment", "attachment", "leaf-choice")
def fork_briefing(s: Session) -> list[Line]:
    """A fork_briefing attachment written last under a1 is not a leaf candidate."""
    return [
        *_turn(s, 1, None, "Try the refactor in a fork.", "Forking."),
        *_turn(s, 2, "a1", "Keep going here meanwhile.", "Continuing here."),
        s.attachment("f1", "a1", {"type": "fork_briefing", "content": "Fork from a1."}),
    ]


@scenario("empty-file", "parse")
def empty_file(s: Session) -> bytes:
    """A zero-byte transcript file."""
    return b""


@scenario("metadata-only", "parse")
def metadata_only(s: Session) -> list[Line]:
    """Only metadata lines: a summary, a custom title, a tag and a last-prompt."""
    return [
        {"type": "summary", "summary": "Retry helper", "leafUuid": s.uid("a9")},
        s.meta("custom-title", "retry work"),
        s.meta("tag", "backend"),
        s.meta("last-prompt", "cap the delay"),
    ]


@scenario("duplicate-uuid-later-content", "duplicate-uuid")
def duplicate_content(s: Session) -> list[Line]:
    """A reply written twice under one uuid; the second copy's content is what is read."""
    first = s.assistant("a1", [text("First draft of the answer.")], "u1")
    return [
        s.user("u1", "Explain the lockfile.", None),
        first,
        *_turn(s, 2, "a1", "And poetry.lock?", "Same idea, different tool."),
        s.assistant("a1", [text("DUPLICATE: rewritten answer.")], "u1", msg="a1-dup"),
    ]


@scenario("duplicate-uuid-moves-position", "duplicate-uuid", "leaf-choice", "rewind")
def duplicate_position(s: Session) -> list[Line]:
    """A copy of the old branch's leaf written last makes that branch the newest by position."""
    return [
        *_turn(s, 1, None, "Pick a logging library.", "structlog or loguru."),
        *_turn(s, 2, "a1", "Use structlog.", "Switched to structlog."),
        *_turn(s, 3, "a1", "Use loguru.", "Switched to loguru."),
        s.assistant("a2", [text("Switched to structlog.")], "u2"),
    ]


@scenario("missing-and-odd-uuids", "missing-uuid", "parse")
def missing_uuids(s: Session) -> list[Line]:
    """Rows with no uuid, a numeric uuid or a null uuid are skipped, cutting their children off."""
    return [
        *_turn(s, 1, None, "Where is the cache dir?", "~/.cache/orbit."),
        s.user(None, "Make it configurable.", "a1"),
        s.assistant("a2", [text("Added ORBIT_CACHE.")], "u2"),
        s.user("u3", "Document it.", "a2", uuid=12345),
        s.assistant("a3", [text("Documented in README.")], "u3"),
        s.user("u4", "Thanks.", "a1", uuid=None),
    ]

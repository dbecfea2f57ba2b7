"""``rechain check --profile P`` checks the reference in that profile unless ``--impl`` says."""

from __future__ import annotations

from rechain.cli import main


def test_the_default_reader_is_the_reference_in_the_chosen_profile(capsys) -> None:
    # the SDK profile answers this case differently from the CLI's recorded resume
    args = ["check", "--profile", "cli", "--case", "cli-checkpoint-last-prompt",
            "--examples", "0", "--no-shrink"]
    assert main(["check", "--impl", "reference", *args[1:]]) == 1
    capsys.readouterr()
    assert main(args) == 0
    assert "claude-code@2.1.332" in capsys.readouterr().out

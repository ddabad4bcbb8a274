from __future__ import annotations

import sys
import textwrap

from conftest import Runner, git, subjects


def scripted_editor(tmp_path, *replacements):
    """An $EDITOR that applies one (old, new) replacement per run."""
    script = tmp_path / "editor.py"
    state = tmp_path / "editor.state"
    script.write_text(textwrap.dedent(f"""
        import sys, pathlib
        state = pathlib.Path({str(state)!r})
        run = int(state.read_text()) if state.exists() else 0
        state.write_text(str(run + 1))
        steps = {list(replacements)!r}
        path = pathlib.Path(sys.argv[-1])
        old, new = steps[min(run, len(steps) - 1)]
        path.write_text(path.read_text().replace(old, new))
    """))
    return f"{sys.executable} {script}"


def test_edit_commits_a_valid_change(example_cli: Runner, tmp_path):
    editor = scripted_editor(tmp_path, ("oolong tea", "jasmine tea"))
    result = example_cli("edit", "alice", env={"EDITOR": editor})
    assert "Saved people/alice/PROFILE.md" in result.output
    assert "jasmine tea" in (example_cli.ws.people_dir / "alice" / "PROFILE.md").read_text()
    assert subjects(example_cli.ws)[0] == "edit(alice): PROFILE.md by hand"


def test_edit_events_and_visual_wins(example_cli: Runner, tmp_path):
    editor = scripted_editor(tmp_path, ("\n- 2026-11-28", "\n- 2026-12-01 · dinner at her place\n- 2026-11-28"))
    example_cli("edit", "alice", "events", env={"VISUAL": editor, "EDITOR": "false"})
    assert "dinner at her place" in (example_cli.ws.people_dir / "alice" / "EVENTS.md").read_text()


def test_invalid_edit_never_reaches_the_file(example_cli: Runner, tmp_path):
    path = example_cli.ws.people_dir / "alice" / "PROFILE.md"
    before = path.read_bytes()
    editor = scripted_editor(tmp_path, ("relation: friend", "relation: bestie"))
    result = example_cli("edit", "alice", env={"EDITOR": editor}, ok=False)
    assert result.exit_code == 1 and "unknown relation" in result.output and "is unchanged" in result.output
    assert path.read_bytes() == before
    assert git(example_cli.ws, "status", "--porcelain") == ""


def test_a_rejected_edit_keeps_the_text_and_says_where(example_cli: Runner, tmp_path):
    """Without a terminal to reopen the editor in, the edited text was thrown away."""
    editor = scripted_editor(tmp_path, ("relation: friend", "relation: bestie\nnote: jasmine tea, not oolong"))
    result = example_cli("edit", "alice", "profile", env={"EDITOR": editor}, input="", ok=False)
    assert result.exit_code == 1 and "unknown relation" in result.output
    kept = list((example_cli.ws.root / ".heartcompass" / "rejected").iterdir())
    assert [p.name.startswith("alice-PROFILE.md.") for p in kept] == [True]
    assert "jasmine tea, not oolong" in kept[0].read_text() and "relation: bestie" in kept[0].read_text()
    assert example_cli.ws.rel(kept[0]) in result.output and "heartcompass edit alice profile" in result.output
    assert git(example_cli.ws, "status", "--porcelain") == ""  # git-ignored: never committed


def test_invalid_edit_can_be_reopened_and_fixed(example_cli: Runner, tmp_path, monkeypatch):
    import heartcompass.cli.edit_cmd as edit_cmd

    monkeypatch.setattr(edit_cmd, "ask_reopen", lambda: True)
    editor = scripted_editor(tmp_path, ("relation: friend", "relation: bestie"), ("relation: bestie", "relation: dating"))
    result = example_cli("edit", "alice", env={"EDITOR": editor})
    assert "Not saved" in result.output and "Saved people/alice/PROFILE.md" in result.output
    assert "relation: dating" in (example_cli.ws.people_dir / "alice" / "PROFILE.md").read_text()


def test_unchanged_edit_makes_no_commit(example_cli: Runner, tmp_path):
    before = subjects(example_cli.ws)
    result = example_cli("edit", "alice", "memory", env={"EDITOR": "true"})
    assert "No changes" in result.output and subjects(example_cli.ws) == before


def test_a_missing_editor_names_the_variable_to_fix(example_cli: Runner):
    before = (example_cli.ws.people_dir / "alice" / "PROFILE.md").read_text()
    result = example_cli("edit", "alice", env={"EDITOR": "nonexistent-editor"}, ok=False)
    assert result.exit_code == 1 and not isinstance(result.exception, FileNotFoundError)
    assert "'nonexistent-editor'" in result.output and "$EDITOR" in result.output
    assert "export EDITOR=" in result.output and "Traceback" not in result.output
    assert (example_cli.ws.people_dir / "alice" / "PROFILE.md").read_text() == before


def test_editor_value_is_split_like_a_shell_and_visual_wins(example_cli: Runner):
    result = example_cli("edit", "alice", env={"VISUAL": "code --wait", "EDITOR": "nano"}, ok=False)
    assert "'code'" in result.output and "$VISUAL=code --wait" in result.output
    assert "export VISUAL=" in result.output


def test_editor_with_quoted_path_and_arguments_runs(example_cli: Runner, tmp_path):
    folder = tmp_path / "my editors"
    folder.mkdir()
    script = folder / "ed.py"
    script.write_text("import sys, pathlib\nassert sys.argv[1] == '--wait'\np = pathlib.Path(sys.argv[-1])\n"
                      "p.write_text(p.read_text().replace('oolong tea', 'green tea'))\n")
    example_cli("edit", "alice", env={"EDITOR": f"{sys.executable} '{script}' --wait"})
    assert "green tea" in (example_cli.ws.people_dir / "alice" / "PROFILE.md").read_text()


def test_an_editor_that_fails_saves_nothing(example_cli: Runner):
    result = example_cli("edit", "alice", env={"EDITOR": "false"}, ok=False)
    assert "exited with status 1" in result.output and "nothing was saved" in result.output


def test_unbalanced_quote_in_editor_is_one_line(example_cli: Runner):
    result = example_cli("edit", "alice", env={"EDITOR": "vim 'oops"}, ok=False)
    assert result.exit_code == 1 and "$EDITOR is not a valid command" in result.output


def test_an_alias_someone_else_has_is_warned_about(example_cli: Runner, tmp_path):
    example_cli("person", "add", "Bob", "--yes")
    editor = scripted_editor(tmp_path, ("aliases: []", "aliases:\n- 小爱"))
    result = example_cli("edit", "bob", env={"EDITOR": editor})
    assert "Saved people/bob/PROFILE.md" in result.output
    assert "Warning: '小爱' is already the alias of people/alice" in result.output


def test_no_editor_and_no_terminal_is_a_clear_error_not_vi(example_cli):
    result = example_cli("edit", "alice", ok=False)
    assert result.exit_code == 1 and "No terminal to open an editor in" in result.output
    assert "EDITOR" in result.output

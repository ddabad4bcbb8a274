"""person import-vcf: people from a vCard export, merged after asking."""

from __future__ import annotations

from conftest import Runner, subjects, tree_snapshot

VCF = """BEGIN:VCARD
VERSION:3.0
FN:Carol Smith
N:Smith;Carol;;;
NICKNAME:Caz,CJ
TEL;TYPE=CELL:+1 (555) 867-5309
EMAIL;TYPE=INTERNET:carol@example.com
BDAY:1990-07-14
END:VCARD
BEGIN:VCARD
VERSION:2.1
N;CHARSET=UTF-8;ENCODING=QUOTED-PRINTABLE:=E7=8E=8B;=E8=8A=B3;;;
TEL;CELL:13800138000
BDAY:--0302
END:VCARD
BEGIN:VCARD
VERSION:3.0
FN:Alice Chen
EMAIL:alice@example.com
NICKNAME:Ali
END:VCARD
BEGIN:VCARD
VERSION:3.0
TEL:+1 555 000 0000
END:VCARD
"""


def _write(tmp_path, text=VCF):
    path = tmp_path / "contacts.vcf"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_new_people_with_handles_and_birthdays(example_cli: Runner, tmp_path):
    result = example_cli("person", "import-vcf", _write(tmp_path))
    assert "added 2 people" in result.output
    assert "Not merged:" in result.output and "alice" in result.output  # no terminal, no --yes: asked about
    assert "contacts.vcf:" in result.output and "no name" in result.output
    carol = (example_cli.ws.people_dir / "carol-smith" / "PROFILE.md").read_text()
    assert "Caz" in carol and "+1 (555) 867-5309" in carol and "carol@example.com" in carol
    assert "1990-07-14" in carol
    wang = next(p for p in example_cli.ws.people_dir.iterdir() if (p / "PROFILE.md").is_file()
                and "王芳" in (p / "PROFILE.md").read_text())
    text = (wang / "PROFILE.md").read_text()
    assert "13800138000" in text and "03-02" in text
    assert subjects(example_cli.ws)[0] == "add: from contacts (2 new)"
    show = example_cli("person", "show", "carol-smith")
    assert "+1 (555) 867-5309" in show.output
    # a phone written another way is the same handle: routed to Carol, nothing added twice
    again = example_cli("person", "import-vcf", _write(tmp_path, VCF.replace("+1 (555) 867-5309", "+15558675309")
                                                       .replace("FN:Carol Smith", "FN:C. Smith")), "--yes")
    assert "updated carol-smith" in again.output
    assert "C. Smith" in (example_cli.ws.people_dir / "carol-smith" / "PROFILE.md").read_text()


def test_a_merge_adds_only_what_is_missing_after_asking(example_cli: Runner, tmp_path, monkeypatch):
    from fakes import Questions
    from heartcompass.cli import person_vcf

    monkeypatch.setattr(person_vcf, "interactive", lambda: True)
    questions = Questions(monkeypatch, False)
    example_cli("person", "import-vcf", _write(tmp_path))
    assert any("Alice Chen is alice here" in q for q in questions.asked)
    alice = (example_cli.ws.people_dir / "alice" / "PROFILE.md").read_text()
    assert "alice@example.com" not in alice  # declined
    Questions(monkeypatch, True)
    example_cli("person", "import-vcf", _write(tmp_path))
    alice = (example_cli.ws.people_dir / "alice" / "PROFILE.md").read_text()
    assert "alice@example.com" in alice and "Ali\n" in alice and "birthday: 1996-04-12" in alice


def test_no_vcard_is_an_error_that_changes_nothing(example_cli: Runner, tmp_path):
    before = tree_snapshot(example_cli.ws.root)
    result = example_cli("person", "import-vcf", _write(tmp_path, "hello\n"), ok=False)
    assert result.exit_code == 1 and "no vCard found" in result.output and "Traceback" not in result.output
    assert tree_snapshot(example_cli.ws.root) == before


def test_a_nickname_that_is_the_user_a_speaker_or_someone_else_is_no_alias(example_cli: Runner, tmp_path):
    """A vCard NICKNAME "Bob,me,import:me,Lei" (Bob another person, Lei the user) gives none of them."""
    from heartcompass.formats import profile as profile_fmt

    example_cli("person", "add", "Bob", "--yes")
    example_cli("config", "set", "user.name", "Lei")
    card = "BEGIN:VCARD\nVERSION:3.0\nFN:Dana Park\nNICKNAME:Bob,me,import:me,Lei,bob,我,Dee\nEND:VCARD\n"
    example_cli("person", "import-vcf", _write(tmp_path, card), "--yes")
    aliases = profile_fmt.load(example_cli.ws.people_dir / "dana-park" / "PROFILE.md").aliases
    assert aliases == ["Dee"]
    card = "BEGIN:VCARD\nVERSION:3.0\nFN:Alice Chen\nNICKNAME:Bob,me,Lei,Ali\nEND:VCARD\n"
    example_cli("person", "import-vcf", _write(tmp_path, card), "--yes")
    aliases = profile_fmt.load(example_cli.ws.people_dir / "alice" / "PROFILE.md").aliases
    assert "Ali" in aliases and not {"Bob", "me", "Lei"} & set(aliases)

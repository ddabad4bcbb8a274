"""The trust table's rules flipped by hand, one at a time (issue 29): each
must make tests/test_trust_table.py fail. `python tests/trust_mutants.py
[NAME ...]` restores every file it touches and prints KILLED or SURVIVED per
mutant; a mutant whose text is no longer in the code stops it (update the list
with the code). Not collected by pytest (no test_ prefix)."""
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
T = "heartcompass/memory/proposal/trust.py"
MUTANTS = [
    ("persona trusted", T, "TRUSTED = frozenset({Source.USER_CHAT,", "TRUSTED = frozenset({Source.PERSONA, Source.USER_CHAT,"),
    ("coach note the user's own", T, "USERS_OWN = frozenset({Source.USER_CHAT,", "USERS_OWN = frozenset({Source.COACH_NOTE, Source.USER_CHAT,"),
    ("other import the user's own", T, "USERS_OWN = frozenset({Source.USER_CHAT,", "USERS_OWN = frozenset({Source.OTHER_IMPORT, Source.USER_CHAT,"),
    ("all -> any", T, "return all(s in rule.sources for s in cited)", "return any(s in rule.sources for s in cited)"),
    ("chat note every", T, "every=False, offered=UNTRUSTED", "every=True, offered=UNTRUSTED"),
    ("chat note any without 'not cited'", T, "return not cited or any(", "return any("),
    ("coach tag ignored", T, "return Source.COACH_NOTE if dailylog.COACH_TAG in entry.tags else Source.NOTE", "return Source.NOTE"),
    ("import:me is someone else", T, 'if speaker == "import:me":', 'if speaker == "import:me!":'),
    ("context trusted", T, "Source.USER_IMPORT, Source.OTHER_IMPORT})\n", "Source.USER_IMPORT, Source.OTHER_IMPORT, Source.GROUP_CONTEXT})\n"),
    ("hearsay of none", T, "return bool(cited) and all(", "return all("),
    ("hearsay includes user import", T, "HEARSAY = frozenset({Source.OTHER_IMPORT})", "HEARSAY = frozenset({Source.OTHER_IMPORT, Source.USER_IMPORT})"),
    ("follow-up from anyone", T, "    Claim.FOLLOW_UP: _FROM_TRUSTED,\n", "    Claim.FOLLOW_UP: Rule(frozenset(Source)),\n"),
    ("thread only trusted", T, "    Claim.THREAD: Rule(frozenset(Source)),\n", "    Claim.THREAD: _FROM_TRUSTED,\n"),
    ("profile field from anyone", T, "    Claim.PROFILE_FIELD: _FROM_TRUSTED,\n", "    Claim.PROFILE_FIELD: Rule(frozenset(Source)),\n"),
    ("link from anyone", T, "    Claim.LINK: _FROM_TRUSTED,\n", "    Claim.LINK: Rule(frozenset(Source)),\n"),
    ("removal from anyone", T, "    Claim.REMOVAL: _FROM_TRUSTED,\n", "    Claim.REMOVAL: Rule(frozenset(Source)),\n"),
    ("mention from anyone", T, "    Claim.MENTION: _FROM_TRUSTED,\n", "    Claim.MENTION: Rule(frozenset(Source)),\n"),
    ("event from anyone", T, "    Claim.EVENT: _FROM_TRUSTED,\n", "    Claim.EVENT: Rule(frozenset(Source)),\n"),
    ("note kept as written: chat too", T, "KEPT_AS_WRITTEN = frozenset({Source.NOTE})", "KEPT_AS_WRITTEN = frozenset({Source.NOTE, Source.USER_CHAT})"),
    ("note pasted never", T, "KEPT_AS_WRITTEN = frozenset({Source.NOTE})", "KEPT_AS_WRITTEN = frozenset()"),
    ("nothing relayed", T, "RELAYED = frozenset({Source.COACH_NOTE})", "RELAYED = frozenset()"),
    ("offered ignored", T, "return source in (self.sources if self.offered is None else self.offered)", "return source in self.sources"),
    ("trusted_only always", T, "return rule.every and rule.sources <= TRUSTED", "return rule.every"),
    ("trusted_only never", T, "return rule.every and rule.sources <= TRUSTED", "return False"),
    ("label the note as the user", T, 'Source.NOTE: "trusted",', 'Source.NOTE: "trusted: the user",'),
    ("evidence ignores refusal", "heartcompass/memory/proposal/evidence.py", "        if refused:\n", "        if False:\n"),
    ("apply follow-up negated", "heartcompass/memory/proposal/apply.py", 'if key == "threads" and not supported(', 'if key == "threads" and supported('),
    ("apply facts as threads", "heartcompass/memory/proposal/apply.py", '("facts", memory_fmt.FACTS, Claim.FACT)', '("facts", memory_fmt.FACTS, Claim.THREAD)'),
    ("apply about-me as facts", "heartcompass/memory/proposal/apply.py", '("about_user", memory_fmt.ABOUT_ME, Claim.ABOUT_ME)', '("about_user", memory_fmt.ABOUT_ME, Claim.FACT)'),
    ("apply field as thread", "heartcompass/memory/proposal/apply.py", "ck.evidence(what, fc.evidence, Claim.PROFILE_FIELD)", "ck.evidence(what, fc.evidence, Claim.THREAD)"),
    ("schema about-me as facts", "heartcompass/memory/proposal/schema.py", 'users = offered(Claim.ABOUT_ME)', 'users = offered(Claim.FACT)'),
    ("schema chat notes as threads", "heartcompass/memory/proposal/schema.py", '("chat_notes", "C", offered(Claim.CHAT_NOTE))', '("chat_notes", "C", offered(Claim.THREAD))'),
    ("hand lines support", T, "LINES_SUPPORT = frozenset({Mark.LOG, Mark.IMPORT, Mark.TOLD})", "LINES_SUPPORT = frozenset({Mark.LOG, Mark.IMPORT, Mark.TOLD, Mark.HAND})"),
    ("told lines support nothing", T, "LINES_SUPPORT = frozenset({Mark.LOG, Mark.IMPORT, Mark.TOLD})", "LINES_SUPPORT = frozenset({Mark.LOG, Mark.IMPORT})"),
    ("imports verified", T, "UNVERIFIED = frozenset({Mark.IMPORT})", "UNVERIFIED = frozenset()"),
    ("told not the user's", T, 'THE_USERS = {Mark.HAND: "you wrote this line by hand", Mark.TOLD: "you told this"}', 'THE_USERS = {Mark.HAND: "you wrote this line by hand"}'),
    ("import the user's", T, 'THE_USERS = {Mark.HAND: "you wrote this line by hand", Mark.TOLD: "you told this"}', 'THE_USERS = {Mark.HAND: "you wrote this line by hand", Mark.TOLD: "you told this", Mark.IMPORT: "x"}'),
    ("marker no rstrip", T, "m = MARKER.search(line.rstrip())", "m = MARKER.search(line)"),
    ("marker whole text", T, "return Mark(text.split(\" \")[0]), text", "return Mark(text.split(\" \")[0]), text[:3]"),
    ("evidence: found ignored", "heartcompass/memory/proposal/evidence.py", "if not found and not any(mark in LINES_SUPPORT", "if not any(mark in LINES_SUPPORT"),
    ("asking: told() negated", "heartcompass/memory/proposal/asking.py", "return mark_of(line) is Mark.TOLD", "return mark_of(line) is Mark.HAND"),
    ("compression: told check", "heartcompass/memory/proposal/compression.py", "elif (mark_of(line) is Mark.TOLD or line in fresh)", "elif (mark_of(line) is Mark.HAND or line in fresh)"),
    ("workbench: hand mark", "heartcompass/memory/proposal/workbench.py", "return line in self.protected or mark_of(line) is Mark.HAND", "return line in self.protected"),
]
only = sys.argv[1:]
survivors = []
for name, path, old, new in MUTANTS:
    if only and name not in only:
        continue
    f = ROOT / path
    text = f.read_text()
    assert text.count(old) == 1, (name, old)
    f.write_text(text.replace(old, new))
    try:
        r = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                            "tests/test_trust_table.py"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    finally:
        f.write_text(text)
    last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else r.stderr[-200:]
    print(("KILLED  " if r.returncode else "SURVIVED") + f" {name}: {last}", flush=True)
    if not r.returncode:
        survivors.append(name)
ran = [m for m in MUTANTS if not only or m[0] in only]
print(f"{len(ran) - len(survivors)} of {len(ran)} killed; survivors: {survivors}")
sys.exit(1 if survivors else 0)

#!/usr/bin/python3
"""Fixtures for tests/cli/sacrebleu_parity.sh: test sets, and what sacreBLEU's own command
line prints for each tfm-bleu invocation in CASES.

sacreBLEU is pure Python but not packaged by Debian; run it from a checkout:

    SACREBLEU_SRC=/path/to/sacrebleu /usr/bin/python3 tests/golden/make_sacrebleu_golden.py

(needs python3-regex, -portalocker, -tabulate, -colorama, -lxml, -numpy). The test sets are:
  - sacreBLEU's own unit-test vectors (test/test_bleu.py, test_chrf.py, test_ter.py);
  - the first 400 segments of its WMT17 en-de system outputs (test/wmt17_en_de_systems.pkl.bz2,
    the data of its test_significance.py): the reference and four systems;
  - Unicode-heavy, degenerate and multi-reference sets written here.
Output: tests/golden/data/sacrebleu/*.txt and expected.tsv (case id, tfm-bleu arguments,
sacreBLEU's JSON output on one line, or its per-segment scores for --sentence-level).
"""
import bz2
import json
import os
import pickle
import random
import subprocess
import sys

SRC = os.environ.get("SACREBLEU_SRC")
if not SRC:
    sys.exit("set SACREBLEU_SRC to a sacreBLEU checkout")
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "sacrebleu")
os.makedirs(OUT, exist_ok=True)
version_py = os.path.join(SRC, "sacrebleu", "version.py")
if not os.path.exists(version_py):  # a git checkout has no generated version module
    with open(version_py, "w") as f:
        f.write("__version__ = '2.6.0'\n")


def write(name, lines):
    with open(os.path.join(OUT, name), "w", encoding="utf-8", newline="\n") as f:
        for line in lines:
            f.write(line + "\n")


# --- test sets ---------------------------------------------------------------------------------
# sacreBLEU test/test_bleu.py: test_corpus_bleu_cases
write("tb.hyp", ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."])
write("tb.ref1", ["The dog bit the man.", "It was not unexpected.", "The man bit him first."])
write("tb.ref2", ["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."])
write("tb.empty", ["", "", ""])
# sacreBLEU test/test_chrf.py: test_sentence_level_chrf, test_cases
write("tc.hyp", ["Co nás nejvíc trápí, protože lékaři si vybírají, kdo bude žít a kdo zemře.",
                 "Nebo prostě nemají vybavení, které by jim pomohlo, uvedli lékaři.",
                 "Lapali po dechu, jejich životy skončily dřív, než skutečně začaly.",
                 " Die    Beziehung zwischen  Obama und Netanjahu ist nicht gerade  freundlich. ",
                 " risk assessment must be made of those who are qualified and expertise in the sector - these are the scientists ."])
write("tc.ref", ["Nejvíce smutní jsme z toho, že musíme rozhodovat o tom, kdo bude žít a kdo zemře.",
                 "A někdy nemáme ani potřebný materiál, abychom jim pomohli, popsali lékaři.",
                 "Lapali po dechu a pak jejich život skončil - dřív, než skutečně mohl začít, připomněli.",
                 "Das Verhältnis zwischen Obama und Netanyahu ist nicht gerade freundschaftlich.",
                 "risk assessment has to be undertaken by those who are qualified and expert in that area - that is the scientists ."])
# sacreBLEU test/test_ter.py: test_cases (its WMT 2019 dev example and the corner cases)
write("tt.hyp", ["aaaa bbbb cccc dddd", "dddd eeee ffff", "", "a", "d e f g h a b c",
                 'wählen Sie " Bild neu berechnen , " um beim Ändern der Bildgröße Pixel hinzuzufügen oder zu entfernen , damit das Bild ungefähr dieselbe Größe aufweist wie die andere Größe .',
                 'Sie können beispielsweise ein Dokument erstellen , das ein Auto über die Bühne enthält .'])
write("tt.ref", ["aaaa bbbb cccc dddd", "aaaa bbbb cccc", "a", "", "a b c d e f g h",
                 'wählen Sie " Bild neu berechnen , " um beim Ändern der Bildgröße Pixel hinzuzufügen oder zu entfernen , damit die Darstellung des Bildes in einer anderen Größe beibehalten wird .',
                 'Sie können beispielsweise ein Dokument erstellen , das ein Auto enthalt , das sich über die Bühne bewegt .'])

# WMT17 en-de (sacreBLEU test/wmt17_en_de_systems.pkl.bz2): the reference and four systems.
with bz2.open(os.path.join(SRC, "test", "wmt17_en_de_systems.pkl.bz2")) as f:
    systems = pickle.load(f)
_, (wmt_ref,) = systems.pop()
N = 400
write("wmt.ref", wmt_ref[:N])
wmt_names = ["newstest2017.uedin-nmt.4722.en-de", "newstest2017.online-B.0.en-de",
             "newstest2017.KIT.4950.en-de", "newstest2017.PROMT-Rule-based.4735.en-de"]
by_name = dict(systems)
for k, name in enumerate(wmt_names):
    write(f"wmt.sys{k}", by_name[name][:N])

# Unicode-heavy: every space str.isspace() holds, CJK, full-width and Asian punctuation,
# combining marks, İ and Σ (final sigma), emoji, symbols, numbers in several scripts.
rng = random.Random(50)
pieces = ["The", "cat", "ΣΟΦΙΑ", "σοφός", "İstanbul", "straße", "Ǆemal", "naïve", "café", "e\u0301", "日本語",
          "中文字", "ｶﾀｶﾅ", "ひらがな", "한국어", "١٢٣", "3.5", "1,000", "12-3", "€10", "$", "«quote»", "—", "…",
          "it's", "(hi)", "don't", "'s", "&amp;", "&quot;x&quot;", "<skipped>", "a.b", "x,y", "U.S.", "😀", "👍🏽",
          "、", "。", "（括弧）", "！", "？", "٫", "Ⅻ", "²", "½", "\u200b", "ﬁ", "ß", "Ω", "ǅ"]
spaces = [" ", " ", " ", "\u00a0", "\u3000", "\u2009", "\t", "\u2028", "\u0085", "\u1680", "\u202f", "  "]


def sentence(n):
    out = ""
    for i in range(n):
        out += rng.choice(pieces) + (rng.choice(spaces) if i + 1 < n else "")
    return out


uni_ref, uni_hyp, uni_ref2 = [], [], []
for i in range(60):
    ref = sentence(rng.randint(1, 14))
    words = ref.split()
    hyp_words = [w for w in words if rng.random() > 0.2]
    if hyp_words and rng.random() < 0.5:
        j = rng.randrange(len(hyp_words))
        hyp_words.insert(rng.randrange(len(hyp_words) + 1), hyp_words.pop(j))
    if rng.random() < 0.3:
        hyp_words.append(rng.choice(pieces))
    hyp = rng.choice(spaces).join(hyp_words)
    if rng.random() < 0.3:
        hyp = hyp.upper() if rng.random() < 0.5 else hyp.lower()
    uni_ref.append(ref)
    uni_hyp.append(hyp)
    uni_ref2.append(sentence(rng.randint(1, 10)))
write("uni.ref", uni_ref)
write("uni.ref2", uni_ref2)
write("uni.hyp", uni_hyp)

# Degenerate: empty and whitespace-only lines, one-word lines, long repetitive lines that
# reach TER's shift limits, a hypothesis equal to its reference.
deg_ref = ["", "a", "", "   ", "the the the the", "x " * 120, "a b c d e f g h i j k l m n o p q r s t u v w x y z",
           "same line here .", "one", "Ünïcödé"]
deg_hyp = ["", "", "a", "a", "the", ("x y " * 70).strip(), "z y x w v u t s r q p o n m l k j i h g f e d c b a",
           "same line here .", "two words", "ünïcödé"]
write("deg.ref", [r.rstrip() for r in deg_ref])
write("deg.hyp", deg_hyp)

# Three references in one file, tab-separated (--num-refs 3).
write("wmt.tabrefs", ["\t".join([wmt_ref[i], by_name[wmt_names[2]][i], by_name[wmt_names[3]][i]]) for i in range(100)])
write("wmt.sys0_100", by_name[wmt_names[0]][:100])

# --- cases: tfm-bleu arguments, and the same run through sacreBLEU ----------------------------
CASES = [
    ("tb_13a", "tb.ref1 tb.ref2 -i tb.hyp -m bleu,chrf,ter"),
    ("tb_none", "tb.ref1 tb.ref2 -i tb.hyp --tokenize none"),
    ("tb_intl", "tb.ref1 tb.ref2 -i tb.hyp --tokenize intl"),
    ("tb_char", "tb.ref1 tb.ref2 -i tb.hyp --tokenize char"),
    ("tb_empty", "tb.ref1 tb.ref2 -i tb.empty -m bleu,chrf,ter"),
    ("tc_default", "tc.ref -i tc.hyp -m chrf"),
    ("tc_beta3_eps", "tc.ref -i tc.hyp -m chrf --chrf-beta 3 --chrf-eps-smoothing"),
    ("tc_ws", "tc.ref -i tc.hyp -m chrf --chrf-beta 3 --chrf-whitespace"),
    ("tc_pp", "tc.ref -i tc.hyp -m chrf --chrf-word-order 2"),
    ("tc_sent", "tc.ref -i tc.hyp -m chrf --sentence-level"),
    ("tt_default", "tt.ref -i tt.hyp -m ter"),
    ("tt_sent", "tt.ref -i tt.hyp -m ter --sentence-level"),
    ("wmt_all", "wmt.ref -i wmt.sys0 -m bleu,chrf,ter"),
    ("wmt_pp_lc", "wmt.ref -i wmt.sys1 -m bleu,chrf --lowercase --chrf-word-order 2 --chrf-lowercase"),
    ("wmt_intl", "wmt.ref -i wmt.sys2 --tokenize intl"),
    ("wmt_char", "wmt.ref -i wmt.sys3 --tokenize char"),
    ("wmt_smooth", "wmt.ref -i wmt.sys1 --smooth-method floor --smooth-value 0.2"),
    ("wmt_addk", "wmt.ref -i wmt.sys1 --smooth-method add-k"),
    ("wmt_ter_opts", "wmt.ref -i wmt.sys2 -m ter --ter-normalized --ter-no-punct --ter-case-sensitive"),
    ("wmt_sent_bleu", "wmt.ref -i wmt.sys0 --sentence-level"),
    ("wmt_ci", "wmt.ref -i wmt.sys0 -m bleu,chrf,ter --confidence"),
    ("wmt_bs", "wmt.ref -i wmt.sys0 wmt.sys1 wmt.sys2 wmt.sys3 -m bleu,chrf,ter --paired-bs"),
    ("wmt_ar", "wmt.ref -i wmt.sys0 wmt.sys1 wmt.sys2 wmt.sys3 -m bleu,chrf --paired-ar --paired-ar-n 2000"),
    ("wmt_tabrefs", "wmt.tabrefs --num-refs 3 -i wmt.sys0_100 -m bleu,chrf,ter"),
    ("uni_all", "uni.ref -i uni.hyp -m bleu,chrf,ter"),
    ("uni_lc", "uni.ref -i uni.hyp -m bleu,chrf,ter --lowercase --chrf-lowercase --chrf-word-order 2"),
    ("uni_intl", "uni.ref uni.ref2 -i uni.hyp --tokenize intl"),
    ("uni_char", "uni.ref uni.ref2 -i uni.hyp --tokenize char --lowercase"),
    ("uni_ter_asian", "uni.ref -i uni.hyp -m ter --ter-normalized --ter-asian-support --ter-no-punct"),
    ("uni_ter_cs", "uni.ref uni.ref2 -i uni.hyp -m ter --ter-case-sensitive"),
    ("uni_ws", "uni.ref uni.ref2 -i uni.hyp -m chrf --chrf-whitespace"),
    ("uni_sent_ter", "uni.ref -i uni.hyp -m ter --sentence-level"),
    ("uni_sent_bleu", "uni.ref uni.ref2 -i uni.hyp --sentence-level --tokenize intl"),
    ("deg_all", "deg.ref -i deg.hyp -m bleu,chrf,ter"),
    ("deg_sent_ter", "deg.ref -i deg.hyp -m ter --sentence-level"),
    ("deg_sent_chrf", "deg.ref -i deg.hyp -m chrf --sentence-level --chrf-word-order 2"),
]

RENAME = {"--tokenize": "-tok", "--lowercase": "-lc", "--num-refs": "-nr", "--sentence-level": "-sl"}


def sacrebleu_args(args):
    out = []
    for a in args.split():
        if out and out[-1] == "-m":
            out += a.split(",")
            continue
        out.append(RENAME.get(a, a))
    # the files after -i, as paths
    return out


with open(os.path.join(OUT, "expected.tsv"), "w", encoding="utf-8") as f:
    for case_id, args in CASES:
        cmd = [sys.executable, "-m", "sacrebleu"] + sacrebleu_args(args) + ["-w", "6", "-q", "--no-color"]
        sentence = "--sentence-level" in args
        cmd += ["-b"] if sentence else ["-f", "json"]
        env = dict(os.environ, PYTHONPATH=SRC, SACREBLEU_SEED="12345")
        out = subprocess.run(cmd, cwd=OUT, env=env, capture_output=True, text=True, check=True).stdout
        if sentence:
            value = " ".join(out.split())
        else:
            value = json.dumps(json.loads(out), ensure_ascii=False, separators=(",", ":"))
        f.write(f"{case_id}\t{args}\t{value}\n")
print(f"wrote {len(CASES)} cases to {OUT}")

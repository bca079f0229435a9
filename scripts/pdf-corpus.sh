#!/bin/sh
# Regenerates the PDF corpus in testdata/pdf from pages in the repository:
#   - corpus pages (testdata/corpus/pages) printed by headless Chromium, with its running
#     header (date, title) and footer (URL, page n/m), served from 127.0.0.1 so the footer
#     names no local path;
#   - typeset pages (testdata/pdf/src): two columns with ligatures and soft hyphens, and a
#     multi-page report with running headers;
#   - a scanned page (an image of a page, no text layer), an encrypted PDF (a user password)
#     and one with an owner password only (readable by anyone, as readers open it);
#   - for each PDF, NAME.txt: the text as poppler's pdftotext reads it (a third engine, the
#     reader's view), and quotes.tsv: quotes taken from that text (found) and altered copies
#     that are on no page (altered), with the page each found quote is on.
# Needs chromium, qpdf, poppler-utils (pdftotext, pdftoppm) and python3.
set -eu
cd "$(dirname "$0")/.."
out=testdata/pdf
tmp=$(mktemp -d)
trap 'kill $srv 2>/dev/null || true; rm -rf "$tmp"' EXIT

chrome() { # chrome URL OUT [extra flags]
	url=$1 dst=$2; shift 2
	timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --user-data-dir="$tmp/ud" "$@" \
		--print-to-pdf="$dst" "$url" >/dev/null 2>&1
}

port=18765
python3 -m http.server -b 127.0.0.1 -d testdata $port >/dev/null 2>&1 &
srv=$!
sleep 1
for p in corpus/pages/ars-1 corpus/pages/heise corpus/pages/lemonde-1 corpus/pages/lwn-1 corpus/pages/ebb-org; do
	chrome "http://127.0.0.1:$port/$p.html" "$out/$(basename $p).pdf"
done
chrome "http://127.0.0.1:$port/pdf/src/columns.html" "$out/columns.pdf" --no-pdf-header-footer
chrome "http://127.0.0.1:$port/pdf/src/report.html" "$out/report.pdf"
kill $srv

pdftoppm -r 70 -png -f 1 -l 1 -singlefile "$out/report.pdf" "$tmp/scan"
cp "$out/src/scanned.html" "$tmp/scanned.html"
chrome "file://$tmp/scanned.html" "$out/scanned.pdf" --no-pdf-header-footer

qpdf --encrypt user-secret owner-secret 256 -- "$out/report.pdf" "$out/encrypted.pdf"
qpdf --encrypt "" owner-secret 256 -- "$out/columns.pdf" "$out/owner-only.pdf"

for f in "$out"/*.pdf; do
	pdftotext -enc UTF-8 "$f" "${f%.pdf}.txt" 2>/dev/null || rm -f "${f%.pdf}.txt"
done
rm -f "$out/encrypted.txt"

python3 - "$out" <<'PY'
import os, re, sys, unicodedata
from html.parser import HTMLParser
out = sys.argv[1]
def fold(s):
    s = unicodedata.normalize("NFKC", s).lower()
    return re.sub(r"\s+", " ", s)
class Visible(HTMLParser):
    # the text of the HTML page the PDF was printed from, without scripts and styles
    def __init__(self):
        super().__init__(convert_charrefs=True); self.parts = []; self.skip = 0
    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style", "noscript", "template", "head"): self.skip += 1
        self.parts.append(" ")
    def handle_endtag(self, tag):
        if tag in ("script", "style", "noscript", "template", "head") and self.skip: self.skip -= 1
        self.parts.append(" ")
    def handle_data(self, d):
        if not self.skip: self.parts.append(d)
sources = {}
for d in ("testdata/corpus/pages", out + "/src"):
    for n in os.listdir(d):
        if n.endswith(".html"):
            v = Visible(); v.feed(open(os.path.join(d, n), encoding="utf-8", errors="replace").read())
            sources[n[:-5]] = fold("".join(v.parts))
skip = re.compile(r"127\.0\.0\.1|\d+/\d+|\b(AM|PM)\b|[\u00ad\ufffd]")
rows = []
for name in sorted(os.listdir(out)):
    if not name.endswith(".txt") or name in ("scanned.txt", "owner-only.txt"):
        continue
    pdf = name[:-4] + ".pdf"
    text = open(os.path.join(out, name), encoding="utf-8").read()
    pages = text.split("\f")
    whole = fold(" ".join(pages))
    source = sources.get(name[:-4], "")
    # lines on half the pages or more are running headers and footers, not the document
    count = {}
    for page in pages:
        for l in set(l.strip() for l in page.split("\n") if l.strip()):
            k = re.sub(r"\d", "#", l)
            count[k] = count.get(k, 0) + 1
    running = {k for k, c in count.items() if len(pages) > 1 and c * 2 >= len(pages)}
    pages = ["\n".join(l for l in page.split("\n") if re.sub(r"\d", "#", l.strip()) not in running) for page in pages]
    cands = []
    for num, page in enumerate(pages, 1):
        for para in re.split(r"\n\s*\n", page):
            lines = [l.strip() for l in para.split("\n") if l.strip()]
            if any(l.endswith("-") for l in lines[:-1]):
                continue  # hyphen at a line end: left to the hand-written quotes
            words = " ".join(lines).split()
            if len(words) < 14:
                continue
            q = " ".join(words[2:12])
            if skip.search(q) or len(q) < 40 or fold(q) not in source:
                continue  # a quote must read in the page's own order too
            cands.append((num, q))
    step = max(1, len(cands) // 12)
    for num, q in cands[::step][:12]:
        rows.append((pdf, "found", num, q))
        w = q.split()
        alt = None
        for i, t in enumerate(w):
            m = re.search(r"\d", t)
            if m:
                d = str((int(m.group()) + 1) % 10)
                w2 = list(w); w2[i] = t[:m.start()] + d + t[m.end():]
                alt = " ".join(w2); break
        if alt is None:
            i = max(range(1, len(w)), key=lambda i: len(w[i]) + len(w[i-1]))
            w2 = list(w); w2[i-1], w2[i] = w2[i], w2[i-1]
            alt = " ".join(w2)
        if fold(alt) in whole:
            continue
        rows.append((pdf, "altered", 0, alt))
with open(os.path.join(out, "quotes.tsv"), "w", encoding="utf-8") as f:
    f.write("# file\tkind\tpage\tquote  (generated by scripts/pdf-corpus.sh; hand-written rows are in quotes-typeset.tsv)\n")
    for r in rows:
        f.write("%s\t%s\t%d\t%s\n" % r)
PY
ls -la "$out"

#!/usr/bin/env python3
"""tfm-view's pages in headless Chromium (tests/cli/view.sh runs this).

  view_page.py model PAGE PIECES ATTENTION LAYERS HEADS TARGETS
      a translation model's page: loads offline and cleanly, holds every layer and head and the
      tokens, answers hovers and clicks, its screenshots show the weights of ATTENTION
      (tfm-encode --attention-out, every layer) at probed cells, and its step view's softmax is
      the encoder's
  view_page.py bert PAGE PIECES ATTENTION LAYERS HEADS
      a BERT-family encoder's page: its one attention block, tokens and step view
  view_page.py weights PAGE PIECES ATTENTION LAYERS HEADS
      a page of weights alone (tfm-view --weights): layers x heads, labels, matrix pixels
  view_page.py attend PAGE OUTPUT HEADS CAUSAL
      a tfm-attend page: the step view's numbers are tfm-attend's OUTPUT (y, then the weights)
  view_page.py measure PAGE...
      each page's size and load time (tests/bench/view_pages.sh)
  view_page.py shots PAGE DIR
      a screenshot of each view into DIR (docs/view-*.png)

Prints one line per check ("ok: ..." or "FAIL: ..."), the render time and the page's size; exits
1 when a check failed."""

import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chromium import Browser, decode_png, find_chromium, pixel  # noqa: E402

failures = 0


def check(ok, what):
    global failures
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures += 1


def weight_colour(w):
    """The page's colour of an attention weight (explorer.js weightColour): white to (8, 69, 148)."""
    t = min(1.0, max(0.0, float(w)))
    return tuple(int(np.floor(255 + (c - 255) * t + 0.5)) for c in (8, 69, 148))


def close_colour(a, b, tol=2):
    return all(abs(int(x) - int(y)) <= tol for x, y in zip(a, b))


def npy_records(path):
    out, size = [], os.path.getsize(path)
    with open(path, "rb") as f:
        while f.tell() < size:
            out.append(np.load(f))
    return out


def non_blank(png):
    w, h, rows = png
    colours, coloured = set(), 0
    for y in range(0, h, 2):
        r = rows[y]
        for x in range(0, w, 2):
            px = r[3 * x:3 * x + 3]
            colours.add(px)
            if px != b"\xff\xff\xff":
                coloured += 1
    return len(colours), coloured / max(1, ((w + 1) // 2) * ((h + 1) // 2))


def opened(b, page):
    seconds = b.open(page)
    render = float(b.evaluate("document.body.dataset.renderMs"))
    print("page %s: %d bytes, ready in %.0f ms (render %.0f ms after navigation start)"
          % (os.path.basename(page), os.path.getsize(page), seconds * 1000, render))
    check(render < 1000, "rendered in under 1 s (%.0f ms)" % render)
    problems = b.problems()
    check(not problems, "no console errors, exceptions or network requests: %s" % problems[:3])
    check(all(u.startswith("file:") for u in b.requests()), "only the file itself was loaded: %s" % b.requests()[:3])


def choose(b, select, value):
    b.evaluate("(() => { const s = document.getElementById(%s); s.value = %s;"
               " s.dispatchEvent(new Event('change')); })()" % (json.dumps(select), json.dumps(str(value))))


def texts(b, selector):
    return b.evaluate("Array.from(document.querySelectorAll(%s), (e) => e.textContent)" % json.dumps(selector))


def model_page(page, pieces_file, attention_file, layers, heads, targets):
    layers, heads, targets = int(layers), int(heads), int(targets)
    pieces = open(pieces_file, encoding="utf-8").readline().split()
    att = npy_records(attention_file)  # per encoder layer [H,S,S]
    with Browser(find_chromium()) as b:
        opened(b, page)
        names = texts(b, "#block option")
        check(names == ["encoder self-attention", "decoder masked self-attention", "encoder-decoder attention"],
              "three attention blocks: %s" % names)
        grid_and_tokens(b, layers, heads, pieces)
        check(len(texts(b, "#heads input")) == heads, "a checkbox per head")

        # Hovering a query token keeps its lines only; leaving restores them all.
        every = int(b.evaluate("document.getElementById('head-lines').dataset.lines"))
        b.hover('#head-box .tok.q[data-index="1"]')
        focus = b.evaluate("document.getElementById('head-lines').dataset.focus")
        some = int(b.evaluate("document.getElementById('head-lines').dataset.lines"))
        check(focus == "1" and 0 < some < every, "hovering token 1 shows its lines only (%d of %d)" % (some, every))
        check(b.evaluate("document.querySelector('#head-box .tok.q[data-index=\"1\"]').classList.contains('focus')"),
              "the hovered token is marked")
        b.mouse("mouseMoved", 1, 1)
        check(int(b.evaluate("document.getElementById('head-lines').dataset.lines")) == every, "leaving it restores all lines")

        # Clicking a thumbnail opens that layer and head in the matrix view.
        last = layers - 1
        b.click('#model-grid .thumb[data-layer="%d"][data-head="1"]' % last)
        title = b.evaluate("document.getElementById('matrix-title').textContent")
        check(title == "encoder self-attention, layer %d, head 1" % last, "the matrix view opens the clicked head: %r" % title)
        check(b.evaluate("document.querySelector('.thumb.open').dataset.layer") == str(last), "the thumbnail is marked open")

        # The matrix view's pixels are the weights' colours.
        bad = matrix_matches(b, att[last][1])
        check(not bad, "matrix pixels match the weights at 5 probed cells: %s" % bad)

        # Each view's screenshot shows something.
        for view in ("#head-view", "#model-view", "#matrix-view", "#step-view"):
            colours, share = non_blank(decode_png(b.screenshot(view)))
            check(colours >= 8 and share > 0.02, "%s screenshot is not blank (%d colours, %.0f%% coloured)"
                  % (view, colours, 100 * share))

        # The step view of the encoder (layer 0), token 2, head 0: softmax = the encoder's weights.
        b.click('#heads input[data-head="1"]')  # head 1 (the only one chosen) off, head 0 on
        b.click('#heads input[data-head="0"]')
        choose(b, "token", 2)
        soft = [float(v) for v in b.evaluate("Array.from(document.querySelectorAll('table.steps td.w'), (e) => e.dataset.value)")]
        want = att[0][0][2]
        check(len(soft) == len(want) and np.allclose(soft, want, atol=1e-5),
              "step view softmax (layer 0, head 0, token 2) = tfm-encode's weights (max diff %.2g)"
              % (np.max(np.abs(np.array(soft) - want)) if len(soft) == len(want) else -1))
        check(abs(sum(soft) - 1) < 1e-5, "the softmax sums to 1 (%.7f)" % sum(soft))

        # The decoder's masked self-attention: token 0 sees key 0 alone.
        choose(b, "block", 1)
        check(texts(b, "#head-box .tok.q") == texts(b, "#head-box .tok.k") and len(texts(b, "#head-box .tok.q")) == targets,
              "decoder self-attention: the %d target tokens on both sides" % targets)
        choose(b, "token", 0)
        masked = b.evaluate("document.querySelectorAll('table.steps tr.masked').length")
        check(masked == targets - 1, "causal mask: token 0 sees one key, %d masked (%d)" % (targets - 1, masked))
        choose(b, "block", 2)
        check(texts(b, "#head-box .tok.k") == pieces and len(texts(b, "#head-box .tok.q")) == targets,
              "cross-attention: target tokens attend to the source pieces")
        check(b.evaluate("document.querySelectorAll('table.steps tr.masked').length") == 0, "cross-attention masks no key")
        check(not b.problems(), "no errors after the interactions: %s" % b.problems()[:3])


def matrix_matches(b, w):
    """The matrix view's cells (its canvas screenshot) against the weights w [Tq,Tk] at five cells."""
    shot = decode_png(b.screenshot("#matrix"))
    ds = b.evaluate("Object.assign({}, document.getElementById('matrix').dataset)")
    left, top, cell = int(ds["left"]), int(ds["top"]), int(ds["cell"])
    tq, tk = w.shape
    probes = [(0, 0), (tq - 1, tk - 1), tuple(np.unravel_index(np.argmax(w), w.shape)),
              tuple(np.unravel_index(np.argmin(w), w.shape)), (tq // 2, (tk - 1) // 3)]
    bad = []
    for i, j in probes:
        got = pixel(shot, left + j * cell + cell // 2, top + i * cell + cell // 2)
        if not close_colour(got, weight_colour(w[i, j])):
            bad.append(((i, j), got, weight_colour(w[i, j]), float(w[i, j])))
    return bad


def expected(layers, heads, pieces_file, attention_file):
    """The numbers from the command line, the pieces (the file's first line) and the weights."""
    pieces = open(pieces_file, encoding="utf-8").readline().split()
    return int(layers), int(heads), pieces, npy_records(attention_file)


def grid_and_tokens(b, layers, heads, pieces, keys_too=True):
    """The model view holds layers x heads thumbnails, the head view the pieces (as queries, and
    as keys too for self-attention)."""
    check(b.evaluate("document.querySelectorAll('#model-grid .thumb').length") == layers * heads,
          "model view: %d layers x %d heads" % (layers, heads))
    check(texts(b, "#head-box .tok.q") == pieces and (not keys_too or texts(b, "#head-box .tok.k") == pieces),
          "head view: the %d pieces%s" % (len(pieces), " on both sides" if keys_too else ""))


def weights_page(page, pieces_file, attention_file, layers, heads):
    layers, heads, pieces, att = expected(layers, heads, pieces_file, attention_file)
    with Browser(find_chromium()) as b:
        opened(b, page)
        grid_and_tokens(b, layers, heads, pieces)
        b.click('#model-grid .thumb[data-layer="%d"][data-head="%d"]' % (layers - 1, heads - 1))
        bad = matrix_matches(b, att[layers - 1][heads - 1])
        check(not bad, "matrix pixels of layer %d head %d match the weights: %s" % (layers - 1, heads - 1, bad))
        check("the weights alone" in b.evaluate("document.getElementById('step-title').textContent"),
              "the step view says it has no steps")
        check(not b.problems(), "no errors after the interactions: %s" % b.problems()[:3])


def step_softmax(b):
    return np.array([float(v) for v in b.evaluate(
        "Array.from(document.querySelectorAll('table.steps td.w'), (e) => e.dataset.value)")])


def bert_page(page, pieces_file, attention_file, layers, heads):
    layers, heads, pieces, att = expected(layers, heads, pieces_file, attention_file)
    with Browser(find_chromium()) as b:
        opened(b, page)
        check(texts(b, "#block option") == ["self-attention"], "one attention block")
        grid_and_tokens(b, layers, heads, pieces)
        choose(b, "token", 1)
        soft = step_softmax(b)
        check(soft.shape == att[0][0][1].shape and np.allclose(soft, att[0][0][1], atol=1e-5),
              "step view softmax (layer 0, head 0, token 1) = tfm-encode's weights")
        check(b.evaluate("document.querySelectorAll('table.steps tr.masked').length") == 0, "no key masked")
        check(not b.problems(), "no errors after the interactions: %s" % b.problems()[:3])


def attend_page(page, output, heads, causal):
    heads, causal = int(heads), causal == "causal"
    y, w = npy_records(output)[:2]  # tfm-attend: y [T,D], then the weights [H,T,T]
    t, d = y.shape
    with Browser(find_chromium()) as b:
        opened(b, page)
        for i, h in ((0, 0), (t // 2, heads - 1), (t - 1, heads // 2)):
            choose(b, "token", i)
            for k in range(heads):  # head h alone
                b.evaluate("(() => { const c = document.querySelector('#heads input[data-head=\"%d\"]');"
                           " if (c.checked !== %s) c.click(); })()" % (k, "true" if k == h else "false"))
            soft = np.array([float(v) for v in b.evaluate(
                "Array.from(document.querySelectorAll('table.steps td.w'), (e) => e.dataset.value)")])
            check(soft.shape == (t,) and np.allclose(soft, w[h, i], rtol=0, atol=1e-7),
                  "token %d head %d: softmax = tfm-attend's weights" % (i, h))
            out = np.array([float(v) for v in b.evaluate(
                "document.querySelector('canvas.strip[data-name=\"output\"]').dataset.values.split(',')")])
            check(out.shape == (d,) and np.allclose(out, y[i], rtol=1e-6, atol=1e-7),
                  "token %d: the output projection = tfm-attend's output row" % i)
            masked = b.evaluate("document.querySelectorAll('table.steps tr.masked').length")
            check(masked == (t - 1 - i if causal else 0), "token %d: %d keys masked" % (i, masked))
        # Hovering the output strip tells the value under the mouse.
        r = b.hover('canvas.strip[data-name="output"]', dx=1, dy=6)
        tip = b.evaluate("document.getElementById('tooltip').hidden ? '' : document.getElementById('tooltip').textContent")
        said = tip.split(" = ")
        check(len(said) == 2 and said[0] == "output[0]" and abs(float(said[1]) - y[t - 1, 0]) <= 5e-4 * abs(y[t - 1, 0]) + 1e-9,
              "hovering the output strip's first cell says its value: %r (%g)" % (tip, y[t - 1, 0]))
        check(not b.problems(), "no errors after the interactions: %s" % b.problems()[:3])


def measure(*pages):
    """Each page's size and the time Chromium takes to make it ready (the best of three loads)."""
    with Browser(find_chromium()) as b:
        for page in pages:
            best = min(b.open(page) for _ in range(3))
            render = float(b.evaluate("document.body.dataset.renderMs"))
            print("%s: %.2f MB, ready in %.0f ms (best of 3; last render %.0f ms after navigation start), %s"
                  % (page, os.path.getsize(page) / 1e6, best * 1000, render,
                     "no errors" if not b.problems() else b.problems()[:2]))


def shots(page, outdir):
    with Browser(find_chromium(), width=1100, height=900) as b:
        b.open(page)
        b.hover('#head-box .tok.q[data-index="3"]')
        for view in ("head", "model", "matrix", "step"):
            png = b.screenshot("#%s-view" % view)
            with open(os.path.join(outdir, "view-%s.png" % view), "wb") as f:
                f.write(png)
            print("wrote %s (%d bytes)" % (os.path.join(outdir, "view-%s.png" % view), len(png)))


if __name__ == "__main__":
    mode, args = sys.argv[1], sys.argv[2:]
    {"model": model_page, "bert": bert_page, "weights": weights_page, "attend": attend_page, "shots": shots,
     "measure": measure}[mode](*args)
    sys.exit(1 if failures else 0)

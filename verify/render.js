// render.js: the rendering verifier's question to the browser, asked of a capture loaded in
// headless Chromium (render.go). It is one function expression, called with a list of quotes,
// each a list of parts (the page's own text that the matcher matched for each part), and it
// answers, for each quote, whether every part is drawn where a reader sees it, and if not why.
//
// The method (docs/verification.md, "The rendering verifier"):
//
//  0. As the extractors' style rules have it, the root and the body are never hidden (a
//     page that hides them until a script runs is shown), and every animation and transition
//     is taken to its end.
//  1. Every text node of the rendered document, in tree order, into open shadow roots,
//     leaving out <script>, <style>, <noscript>, <template> and the <head>, is folded one
//     character at a time: whitespace, invisible characters (Unicode Cf) and quotation marks
//     are dropped (a <q>'s marks are drawn by CSS, not in the text) and the rest is NFKC
//     (a superscript 6 is 6; the extractors write 10<sup>6</sup> as 10⁶). Each folded
//     character remembers its text node and offsets.
//  2. A part, folded the same way, is looked for in that folded text: its first MAX_OCC
//     occurrences. A part is seen when one occurrence is seen whole; the quote when every
//     part is.
//  3. An occurrence is seen when each of its pieces (the characters in one text node) is:
//     its element is not hidden by its style (checkVisibility: display, visibility,
//     content-visibility, opacity), it has client rects of a size (at least MIN_SIZE CSS px
//     high, and a font size of at least MIN_SIZE px), each rect's centre lies inside the
//     document, its effective opacity (the product of its ancestors') is at least
//     MIN_OPACITY, its colour against the effective background behind it has a contrast of
//     at least MIN_CONTRAST:1, and hit testing at the centre of every rect, scrolled into
//     the viewport the way a reader scrolls (the window and the boxes a reader can scroll),
//     finds the text's own box with nothing that paints above it: not clipped away
//     (overflow, clip-path), not covered by another box, not drawn behind its container.
(function (quotes) {
  "use strict";
  const MAX_OCC = 32;
  const MIN_SIZE = 4;
  const MIN_OPACITY = 0.1;
  const MIN_CONTRAST = 1.5;
  const SKIP = new Set(["script", "style", "noscript", "template", "head", "title"]);
  const MARKS = new Set(Array.from("\"'“”„‟«»‘’‚‛‹›″‶〝〞〟′‵ʼ´`"));

  // As in the extractors' style rules, the root and the body are never hidden: a page that
  // hides them (the frame-busting html{display:none}, a fade-in) is shown by its scripts.
  for (const e of [document.documentElement, document.body]) {
    if (!e) continue;
    const cs = getComputedStyle(e);
    if (cs.display === "none") e.style.setProperty("display", "block", "important");
    if (cs.visibility !== "visible") e.style.setProperty("visibility", "visible", "important");
    if (parseFloat(cs.opacity) < 1) e.style.setProperty("opacity", "1", "important");
    if (cs.contentVisibility === "hidden") e.style.setProperty("content-visibility", "visible", "important");
  }
  // Animations and transitions are taken to their end, as a reader who waits sees them; one
  // that never ends is taken off.
  for (const a of document.getAnimations()) {
    try {
      a.finish();
    } catch (e) {
      a.cancel();
    }
  }

  // Pointer events never hide anything: hit testing must see every box that is drawn.
  const force = document.createElement("style");
  force.textContent = "*, *::before, *::after { pointer-events: auto !important; }";
  (document.head || document.documentElement).appendChild(force);

  // Computed styles do not change while the page is judged (only scroll positions do), so
  // each element's is read once.
  const styles = new Map();
  function style(e) {
    let cs = styles.get(e);
    if (!cs) {
      cs = getComputedStyle(e);
      styles.set(e, cs);
    }
    return cs;
  }
  const opacities = new Map();

  function fold(ch) {
    const c = ch.charCodeAt(0);
    if (c < 128) {
      if (c <= 32 || c === 34 || c === 39 || c === 96 || c === 127) return "";
      return ch;
    }
    if (/\s|\p{Cf}/u.test(ch) || MARKS.has(ch)) return "";
    const n = ch.normalize("NFKC");
    let out = "";
    for (const x of n) {
      if (!/\s|\p{Cf}/u.test(x) && !MARKS.has(x)) out += x;
    }
    return out;
  }
  function foldString(s) {
    let out = "";
    for (const ch of s) out += fold(ch);
    return out;
  }

  // 1. The text nodes, and the folded text with its map back to them.
  const nodes = [];
  const stack = [document.documentElement];
  while (stack.length) {
    const n = stack.pop();
    if (n.nodeType === Node.TEXT_NODE) {
      nodes.push(n);
      continue;
    }
    if (n.nodeType === Node.ELEMENT_NODE && SKIP.has(n.localName)) continue;
    const kids = [];
    for (let c = n.firstChild; c; c = c.nextSibling) kids.push(c);
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
    if (n.shadowRoot) stack.push(n.shadowRoot);
  }
  let folded = "";
  const mapNode = [];
  const mapStart = [];
  const mapEnd = [];
  nodes.forEach((node, ni) => {
    const s = node.data;
    let i = 0;
    for (const ch of s) {
      const f = fold(ch);
      for (let k = 0; k < f.length; k++) {
        mapNode.push(ni);
        mapStart.push(i);
        mapEnd.push(i + ch.length);
      }
      folded += f;
      i += ch.length;
    }
  });

  // Composed parent: through a shadow root to its host.
  function up(e) {
    if (e.parentElement) return e.parentElement;
    const p = e.parentNode;
    return p && p.host ? p.host : null;
  }
  function describe(e) {
    let s = "<" + e.localName;
    if (e.id) s += ' id="' + e.id + '"';
    if (typeof e.className === "string" && e.className.trim()) s += ' class="' + e.className.trim() + '"';
    return s + ">";
  }
  function rgba(s) {
    const m = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\s*\)$/.exec(s);
    if (!m) return null;
    let a = 1;
    if (m[4] !== undefined) a = m[4].endsWith("%") ? parseFloat(m[4]) / 100 : parseFloat(m[4]);
    return [+m[1], +m[2], +m[3], a];
  }
  function luminance(c) {
    const f = (v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  }
  function over(top, a, under) {
    return [0, 1, 2].map((i) => top[i] * a + under[i] * (1 - a));
  }
  function opacityOf(e) {
    if (!e) return 1;
    let o = opacities.get(e);
    if (o === undefined) {
      o = parseFloat(style(e).opacity) * opacityOf(up(e));
      opacities.set(e, o);
    }
    return o;
  }
  // paints reports whether e draws something opaque of its own where it lies: a
  // background, an image or a replaced element, not merely a transparent box.
  function paints(e) {
    if (opacityOf(e) < MIN_OPACITY) return false;
    if (["img", "video", "canvas", "iframe", "object", "embed", "svg", "input", "select", "textarea", "button"].includes(e.localName)) return true;
    for (const pseudo of [null, "::before", "::after"]) {
      const cs = pseudo ? getComputedStyle(e, pseudo) : style(e);
      if (pseudo && cs.content === "none") continue;
      const bg = rgba(cs.backgroundColor);
      if ((bg && bg[3] >= MIN_OPACITY) || cs.backgroundImage !== "none") return true;
    }
    return false;
  }
  function boxOf(node) {
    let e = node.parentElement || (node.parentNode && node.parentNode.host) || null;
    while (e && style(e).display === "contents") e = up(e);
    return e;
  }
  function contains(anc, e) {
    for (let x = e; x; x = up(x)) if (x === anc) return true;
    return false;
  }
  function rectsOf(range) {
    return Array.from(range.getClientRects()).filter((r) => r.width > 0 && r.height > 0);
  }
  // bringIntoView scrolls the boxes a reader can scroll (overflow auto or scroll, and the
  // window) so that the centre of rect k of range is in the middle of the viewport.
  function bringIntoView(el, range, k) {
    for (let s = up(el); s; s = up(s)) {
      const cs = style(s);
      const y = /(auto|scroll)/.test(cs.overflowY) && s.scrollHeight > s.clientHeight;
      const x = /(auto|scroll)/.test(cs.overflowX) && s.scrollWidth > s.clientWidth;
      if (!x && !y) continue;
      const r = rectsOf(range)[k];
      if (!r) return null;
      const sr = s.getBoundingClientRect();
      if (y) s.scrollTop += r.top + r.height / 2 - (sr.top + s.clientTop + s.clientHeight / 2);
      if (x) s.scrollLeft += r.left + r.width / 2 - (sr.left + s.clientLeft + s.clientWidth / 2);
    }
    const r = rectsOf(range)[k];
    if (!r) return null;
    window.scrollBy(r.left + r.width / 2 - innerWidth / 2, r.top + r.height / 2 - innerHeight / 2);
    return rectsOf(range)[k] || null;
  }

  // judge returns "" when the characters [s, e) of node are drawn where a reader sees them,
  // and otherwise why not.
  function judge(node, s, e) {
    const el = boxOf(node);
    if (!el) return "they are not inside any element that is drawn";
    if (el.checkVisibility && !el.checkVisibility({ contentVisibilityAuto: true, opacityProperty: true, visibilityProperty: true })) {
      return "their element " + describe(el) + " is not drawn (display, visibility, content-visibility or opacity)";
    }
    const cs = style(el);
    if (cs.visibility !== "visible") return "they are visibility: " + cs.visibility;
    const range = document.createRange();
    range.setStart(node, s);
    range.setEnd(node, e);
    let rects = rectsOf(range);
    if (!rects.length) return "they take no room on the page (not laid out, or scaled to nothing)";
    const size = parseFloat(cs.fontSize);
    if (size < MIN_SIZE) return "their font size is " + size + "px";
    const docW = Math.max(document.documentElement.scrollWidth, document.body ? document.body.scrollWidth : 0);
    const docH = Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0);
    for (const r of rects) {
      if (r.height < MIN_SIZE) return "they are drawn " + r.height.toFixed(1) + "px high";
    }
    const opacity = opacityOf(el);
    if (opacity < MIN_OPACITY) return "their opacity is " + opacity.toFixed(2);
    let fill = rgba(cs.getPropertyValue("-webkit-text-fill-color")) || rgba(cs.color);
    for (let k = 0; k < rects.length; k++) {
      const r = bringIntoView(el, range, k);
      if (!r) return "they take no room on the page once scrolled to";
      const cx = r.left + r.width / 2 + scrollX;
      const cy = r.top + r.height / 2 + scrollY;
      if (cx < 0 || cy < 0 || cx > docW || cy > docH) {
        return "they are drawn outside the page (at " + Math.round(cx) + ", " + Math.round(cy) + ")";
      }
      const x = r.left + r.width / 2;
      const y = r.top + r.height / 2;
      if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) {
        return "no scrolling brings them into the window";
      }
      const root = node.getRootNode();
      const list = (root.elementsFromPoint ? root : document).elementsFromPoint(x, y);
      const i = list.indexOf(el);
      if (i < 0) {
        const at = list.length ? describe(list[0]) : "nothing";
        return "they are clipped away: at their centre the page shows " + at + ", not their element " + describe(el);
      }
      for (let j = 0; j < i; j++) {
        if (paints(list[j])) {
          if (contains(list[j], el)) return "they are drawn behind their container " + describe(list[j]);
          return "they are covered by " + describe(list[j]);
        }
      }
      if (!fill) continue;
      // The background: the boxes under the text at this point, from the text's own down.
      const layers = [];
      let known = true;
      for (let j = i; j < list.length; j++) {
        const bs = style(list[j]);
        if (bs.backgroundImage !== "none") {
          known = false;
          break;
        }
        const bg = rgba(bs.backgroundColor);
        if (bg && bg[3] > 0) {
          layers.push(bg);
          if (bg[3] >= 1) break;
        }
      }
      if (!known) continue;
      let back = [255, 255, 255];
      for (let j = layers.length - 1; j >= 0; j--) back = over(layers[j], layers[j][3], back);
      const text = over(fill, fill[3] * opacity, back);
      const l1 = luminance(text);
      const l2 = luminance(back);
      const contrast = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
      if (contrast < MIN_CONTRAST) {
        return "their colour is too close to the background behind them (contrast " + contrast.toFixed(2) + ":1)";
      }
    }
    return "";
  }

  function judgeOccurrence(at, len) {
    let first = at;
    for (let i = at; i <= at + len; i++) {
      if (i === at + len || mapNode[i] !== mapNode[first]) {
        const node = nodes[mapNode[first]];
        const why = judge(node, mapStart[first], mapEnd[i - 1]);
        if (why) return why;
        first = i;
      }
    }
    return "";
  }

  return quotes.map((parts) => {
    for (const part of parts) {
      const needle = foldString(part);
      if (!needle) continue;
      let why = "";
      let seen = false;
      let from = 0;
      for (let n = 0; n < MAX_OCC; n++) {
        const at = folded.indexOf(needle, from);
        if (at < 0) break;
        const w = judgeOccurrence(at, needle.length);
        if (!w) {
          seen = true;
          break;
        }
        if (!why) why = w;
        from = at + 1;
      }
      if (!seen) {
        if (!why) why = "the words are not in the rendered page's text";
        const shown = part.length > 80 ? part.slice(0, 77) + "..." : part;
        return { seen: false, why: "“" + shown + "”: " + why };
      }
    }
    return { seen: true, why: "" };
  });
})

"""A Sphinx extension of the book's build (``_config.yml``: ``sphinx.local_extensions``): what a
reader's browser gets beyond the text.

* Every image has alt text in words: a figure's is its caption (without the "Paper's Fig. N."
  that opens it), an image outside a figure names the section it is in. Without it the HTML
  writer uses the image's file path, which a screen reader reads out.
* The landing page's ``<title>`` is the book's title once: its heading is that title, to which
  every page's title adds " - <book title>".
"""
from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes

#: the most characters of a caption that an image's alt text takes (cut at a word)
ALT_LENGTH = 250


def _words(node) -> str:
    return " ".join(node.astext().split())


#: TeX a caption's math leaves in its plain text, as a screen reader should say it
_TEX_WORDS = {r"\theta": "θ", r"\sigma": "σ", r"\phi": "φ", r"\zeta": "ζ", r"\psi": "ψ", r"\pm": "±",
              r"\times": "×", r"\propto": "∝", r"\lceil": "", r"\rceil": ""}


def _plain(text: str) -> str:
    """A caption's text without its TeX: u_\\theta as u_θ, \\mathrm{p} as p, no braces or dollars."""
    text = re.sub(r"\\(?:mathrm|text|mathit|mathbf)\{([^{}]*)\}", r"\1", text)
    for tex, word in _TEX_WORDS.items():
        text = text.replace(tex, word)
    text = re.sub(r"\\[()\[\]]|\$", "", text)
    return re.sub(r"\\([A-Za-z]+)", r"\1", text).replace("{", "").replace("}", "")


def _short(text: str) -> str:
    text = _plain(text)
    text = re.sub(r"^(Paper['’]s Figs?\. [\d–-]+\.|Not in the paper(?: \([^)]*\))?\.)\s*", "", text)
    if len(text) <= ALT_LENGTH:
        return text
    return text[:ALT_LENGTH].rsplit(" ", 1)[0] + " …"


def alt_text(image) -> str:
    """What an image shows, in words: its figure's caption, or the section it is in."""
    parent = image.parent
    while parent is not None and not isinstance(parent, (nodes.figure, nodes.section, nodes.document)):
        parent = parent.parent
    if isinstance(parent, nodes.figure):
        caption = next(iter(parent.findall(nodes.caption)), None)
        if caption is not None and _words(caption):
            return _short(_words(caption))
    section = image.parent
    while section is not None and not isinstance(section, nodes.section):
        section = section.parent
    title = next(iter(section.findall(nodes.title)), None) if section is not None else None
    return f"Figure of the section “{_words(title)}”" if title is not None else "Figure"


def set_alt_texts(app, doctree, docname):
    for image in doctree.findall(nodes.image):
        if not image.get("alt") or image["alt"] == image.get("uri"):
            image["alt"] = alt_text(image)


def landing_page_title(app, exception):
    """The landing page's <title> names the book once: the basic theme's template adds " - <book
    title>" to every page's title, and the landing page's title is the book's (the template sets
    that suffix itself, so the written page is corrected)."""
    if exception is not None or app.builder.format != "html":
        return
    book = app.config.html_title
    for name in {app.config.root_doc, app.config.master_doc}:   # (sphinx-external-toc sets master_doc)
        page = Path(app.outdir) / f"{name}.html"
        if not book or not page.is_file():
            continue
        text = page.read_text(encoding="utf-8")
        twice = re.compile(r"<title>\s*(.*?)\s*(?:&#8212;|—|&mdash;)\s*(.*?)\s*</title>", re.S)
        m = twice.search(text)
        if m and m.group(1) == m.group(2):
            page.write_text(text[:m.start()] + f"<title>{m.group(1)}</title>" + text[m.end():], encoding="utf-8")


def setup(app):
    app.connect("doctree-resolved", set_alt_texts)
    app.connect("build-finished", landing_page_title)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

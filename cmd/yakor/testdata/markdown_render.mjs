// Renders Markdown with the web chat's own renderer (web/ui/markdown.js)
// under node, for ui_markdown_test.go: a JSON array of Markdown texts on
// stdin, a JSON array of their HTML on stdout. The renderer builds DOM
// nodes; the few it uses are given here, and serialized as a browser's
// innerHTML would (text escaped, attributes in the order they were set).
import { readFileSync } from 'node:fs';

const esc = (s, attr) => s.replace(/&/g, '&amp;').replace(attr ? /"/g : /[<>]/g, (c) => ({ '"': '&quot;', '<': '&lt;', '>': '&gt;' })[c]);
const VOID = new Set(['br', 'hr', 'img', 'input']);

class Node {
  constructor() {
    this.childNodes = [];
  }

  append(...items) {
    for (const it of items) {
      const n = typeof it === 'string' ? new Text(it) : it;
      if (n instanceof DocumentFragment) this.childNodes.push(...n.childNodes.splice(0));
      else this.childNodes.push(n);
    }
  }

  get innerHTML() {
    return this.childNodes.map((n) => n.outerHTML).join('');
  }

  set textContent(s) {
    this.childNodes = [new Text(String(s))];
  }
}

class Text extends Node {
  constructor(data) {
    super();
    this.data = data;
  }

  get outerHTML() {
    return esc(this.data, false);
  }
}

class DocumentFragment extends Node {}

class Element extends Node {
  constructor(tag) {
    super();
    this.tag = tag;
    this.attrs = new Map();
  }

  setAttribute(k, v) {
    this.attrs.set(k, String(v));
  }

  getAttribute(k) {
    return this.attrs.has(k) ? this.attrs.get(k) : null;
  }

  set className(v) {
    this.setAttribute('class', v);
  }

  get className() {
    return this.getAttribute('class') || '';
  }

  addEventListener() {}

  get outerHTML() {
    const attrs = [...this.attrs].map(([k, v]) => ` ${k}="${esc(v, true)}"`).join('');
    return `<${this.tag}${attrs}>` + (VOID.has(this.tag) ? '' : `${this.innerHTML}</${this.tag}>`);
  }
}

globalThis.Node = Node;
globalThis.document = {
  createElement: (tag) => new Element(tag),
  createElementNS: (ns, tag) => new Element(tag),
  createTextNode: (s) => new Text(s),
  createDocumentFragment: () => new DocumentFragment(),
};

const ui = new URL('../../../web/ui/markdown.js', import.meta.url);
const { renderMarkdown } = await import(ui.href);
const inputs = JSON.parse(readFileSync(0, 'utf8'));
const out = inputs.map((md) => {
  const box = new Element('div');
  box.append(renderMarkdown(md));
  return box.innerHTML;
});
process.stdout.write(JSON.stringify(out));

/** The one way model (and any other untrusted) text becomes HTML in this app.
 *
 * Any script in the webview can call every bound Go method, so this module is
 * a security boundary:
 *  - raw HTML in the markdown is escaped (shown as text), never interpreted;
 *  - links keep only http, https and mailto targets (others become plain
 *    text); they are opened in the system browser by the component, never
 *    inside the webview;
 *  - images are never loaded (remote or data:): a placeholder names them;
 *  - the result goes through DOMPurify with an allowlist of tags and
 *    attributes (no style, no event handlers, no SVG/MathML, no iframes).
 * Code blocks are highlighted with highlight.js (core + a few languages).
 *
 * The work is bounded, so no answer can freeze the window (see `limits`): code
 * blocks that are long or have very long lines are not highlighted (the
 * highlighter's cost grows faster than their length); a text that is very
 * long, nests blocks very deeply or has a table that is very wide is shown as
 * plain text; and whatever the parser or the sanitiser throws also falls back
 * to plain text.
 */
import DOMPurify from 'dompurify'
import hljs from 'highlight.js/lib/core'
import bash from 'highlight.js/lib/languages/bash'
import css from 'highlight.js/lib/languages/css'
import diff from 'highlight.js/lib/languages/diff'
import go from 'highlight.js/lib/languages/go'
import javascript from 'highlight.js/lib/languages/javascript'
import json from 'highlight.js/lib/languages/json'
import python from 'highlight.js/lib/languages/python'
import typescript from 'highlight.js/lib/languages/typescript'
import xml from 'highlight.js/lib/languages/xml'
import yaml from 'highlight.js/lib/languages/yaml'
import markdownLang from 'highlight.js/lib/languages/markdown'
import sql from 'highlight.js/lib/languages/sql'
import { Marked, type Tokens } from 'marked'
import { i18n, t } from '../i18n'

const languages = { bash, css, diff, go, javascript, json, python, typescript, xml, yaml, markdown: markdownLang, sql }
/** The languages code blocks are highlighted in (aliases aside). */
export const highlightedLanguages = Object.keys(languages)
for (const [name, lang] of Object.entries(languages)) hljs.registerLanguage(name, lang)
hljs.registerAliases(['sh', 'shell', 'zsh', 'console'], { languageName: 'bash' })
hljs.registerAliases(['js', 'jsx', 'mjs'], { languageName: 'javascript' })
hljs.registerAliases(['ts', 'tsx'], { languageName: 'typescript' })
hljs.registerAliases(['html', 'svg'], { languageName: 'xml' })
hljs.registerAliases(['yml'], { languageName: 'yaml' })
hljs.registerAliases(['py'], { languageName: 'python' })
hljs.registerAliases(['golang'], { languageName: 'go' })
hljs.registerAliases(['md'], { languageName: 'markdown' })
hljs.registerAliases(['patch'], { languageName: 'diff' })

/** Schemes a link may have. */
export const allowedLinkSchemes = ['http:', 'https:', 'mailto:'] as const

/** The URL when it is an absolute http, https or mailto URL, else null. */
export function allowedHref(raw: string): string | null {
  const href = raw.trim()
  // Only absolute URLs: a relative one would resolve against the app itself.
  if (!/^(https?:\/\/|mailto:)/i.test(href)) return null
  try {
    const u = new URL(href)
    return (allowedLinkSchemes as readonly string[]).includes(u.protocol) ? u.href : null
  } catch {
    return null
  }
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)
}

/** Bounds of the work spent on one text. */
export const limits = {
  /** Code longer than this is shown without highlighting. */
  highlightChars: 20_000,
  /** Code with a line longer than this is shown without highlighting. */
  highlightLineChars: 2_000,
  /** A longer text is shown as plain text. */
  markdownChars: 200_000,
  /** A line nested deeper than this (list markers and quote marks in front of it,
   * and one level per two columns of indentation) makes the text plain. */
  nestingDepth: 64,
  /** A line with more "|" than this (a table that wide) makes the text plain. */
  tableColumns: 200,
  /** More links than this (each one parsed, checked and sanitised) make the text plain. */
  links: 2_000,
  /** While an answer streams, its growing block is shown as plain text past this
   * size: it is formatted once, when it is complete. */
  liveBlockChars: 4_000,
  /** A longer text is formatted block by block over several frames (the blocks
   * not formatted yet show as plain text meanwhile), so the window never waits
   * for all of it. */
  progressiveChars: 16_000,
  /** A single block longer than this (one huge paragraph or list; fenced code
   * excepted) is shown as plain text: its inline parsing cannot be cut up. */
  blockChars: 24_000,
  /** Of a text shown as plain text, this much is laid out; the rest on request. */
  plainShowChars: 64_000,
} as const

/** Why a text is shown as plain text instead of formatted ("" when it is not). */
export function plainReason(src: string): string {
  if (src.length > limits.markdownChars) return 'long'
  if (countLinks(src) > limits.links) return 'links'
  let start = 0
  while (start <= src.length) {
    let end = src.indexOf('\n', start)
    if (end < 0) end = src.length
    if (nesting(src, start, end) > limits.nestingDepth) return 'nested'
    if (end - start > limits.tableColumns) {
      let pipes = 0
      for (let j = start; j < end; j++) if (src.charCodeAt(j) === 124) pipes++
      if (pipes > limits.tableColumns) return 'wide'
    }
    start = end + 1
  }
  return ''
}

/** How deeply the line src[start:end) nests: the quote marks and list markers in
 * front of it, plus one level per two columns of indentation. */
function nesting(src: string, start: number, end: number): number {
  let depth = 0
  let indent = 0
  let i = start
  while (i < end) {
    const c = src.charCodeAt(i)
    const next = i + 1 < end ? src.charCodeAt(i + 1) : 32
    if (c === 32) {
      indent++
      i++
    } else if (c === 9) {
      indent += 4
      i++
    } else if (c === 62 /* > */) {
      depth++
      i++
    } else if ((c === 45 || c === 42 || c === 43) /* - * + */ && (next === 32 || next === 9)) {
      depth++
      i += 2
    } else if (c >= 48 && c <= 57) {
      let j = i
      while (j < end && j - i < 9 && src.charCodeAt(j) >= 48 && src.charCodeAt(j) <= 57) j++
      const m = j < end ? src.charCodeAt(j) : 0
      const after = j + 1 < end ? src.charCodeAt(j + 1) : 32
      if ((m === 46 || m === 41) /* . ) */ && (after === 32 || after === 9)) {
        depth++
        i = j + 2
      } else break
    } else break
  }
  return depth + (indent >> 1)
}

/** How many links src may hold: URLs ("://"), "www." and "mailto:" (an upper bound is
 * enough); it stops counting past the limit. */
function countLinks(src: string): number {
  let n = 0
  for (const needle of ['://', 'www.', 'mailto:']) {
    for (let i = src.indexOf(needle); i >= 0 && n <= limits.links; i = src.indexOf(needle, i + needle.length)) n++
  }
  return n
}

const plainReasons: readonly string[] = ['long', 'links', 'nested', 'wide', 'error']

/** Why a text is shown as plain text, in words. */
export function plainNote(reason: string): string {
  return t(`markdown.plain.${plainReasons.includes(reason) ? reason : 'error'}`)
}

/** The text as escaped, preformatted plain text, with a note saying why. */
export function plainHtml(src: string, reason: string): string {
  return `<p class="md-plain-note">${escapeHtml(plainNote(reason))}</p><pre class="md-plain">${escapeHtml(src)}</pre>`
}

function worthHighlighting(code: string): boolean {
  if (code.length > limits.highlightChars) return false
  let start = 0
  while (start < code.length) {
    let end = code.indexOf('\n', start)
    if (end < 0) end = code.length
    if (end - start > limits.highlightLineChars) return false
    start = end + 1
  }
  return true
}

/** Highlighted HTML of a code text (escaped when the language is unknown, or when
 * the code is too long to highlight quickly: see `limits`). */
export function highlight(code: string, lang: string): { html: string; language: string } {
  const name = lang.trim().split(/\s+/)[0]?.toLowerCase() ?? ''
  if (name && hljs.getLanguage(name) && worthHighlighting(code)) {
    try {
      const r = hljs.highlight(code, { language: name, ignoreIllegals: true })
      return { html: r.value, language: name }
    } catch {
      // fall through to plain text
    }
  }
  return { html: escapeHtml(code), language: '' }
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    // Raw HTML blocks and inline tags are shown as the text they are.
    html({ text }: Tokens.HTML | Tokens.Tag) {
      return escapeHtml(text)
    },
    link(this: { parser: { parseInline(tokens: Tokens.Generic[]): string } }, token: Tokens.Link) {
      const inner = this.parser.parseInline(token.tokens)
      const href = allowedHref(token.href)
      if (!href) return `<span class="md-link-blocked" title="link not allowed">${inner}</span>`
      const title = token.title ? ` title="${escapeHtml(token.title)}"` : ''
      return `<a href="${escapeHtml(href)}"${title} class="md-link" rel="noopener noreferrer">${inner}</a>`
    },
    // Task list boxes as glyphs: no form controls in model output.
    checkbox({ checked }: Tokens.Checkbox) {
      return `<span class="md-task">${checked ? '☑' : '☐'}</span> `
    },
    image(token: Tokens.Image) {
      const label = token.text || token.href
      return `<span class="md-image-blocked" title="images are not loaded">[image: ${escapeHtml(label)}]</span>`
    },
    // A code block under a header naming its language; its buttons (Copy,
    // Wrap) are added once the HTML is sanitised (see addCodeTools).
    code({ text, lang }: Tokens.Code) {
      const { html, language } = highlight(text, lang ?? '')
      const label = language || codeLabel(lang ?? '')
      return (
        `<div class="md-codeblock"><div class="md-code-head"><span class="md-code-lang">${escapeHtml(label)}</span></div>` +
        `<pre class="md-code"><code class="hljs${language ? ` language-${language}` : ''}">${html}</code></pre></div>\n`
      )
    },
  },
})

/** The name a code block's header shows for a language that is not
 * highlighted: the fence's first word (short), else "text". */
function codeLabel(lang: string): string {
  const name = lang.trim().split(/\s+/)[0] ?? ''
  return name && name.length <= 20 ? name.toLowerCase() : 'text'
}

const purifyConfig = {
  ALLOWED_TAGS: [
    'a', 'b', 'blockquote', 'br', 'code', 'del', 'div', 'em', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'i', 'li', 'ol', 'p',
    'pre', 's', 'span', 'strong', 'sub', 'sup', 'table', 'tbody', 'td', 'th', 'thead', 'tr', 'ul',
  ],
  ALLOWED_ATTR: ['href', 'title', 'class', 'rel', 'align', 'start'],
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  KEEP_CONTENT: true,
}

let hooked = false
function installHooks() {
  if (hooked) return
  hooked = true
  DOMPurify.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName === 'A') {
      const href = node.getAttribute('href')
      if (!href || !allowedHref(href)) node.removeAttribute('href')
      node.setAttribute('rel', 'noopener noreferrer')
    }
  })
}

/** A document without a window, where the parser's HTML is sanitised: nothing
 * in it runs or loads. */
let inert: Document | null = null
const inPlaceConfig = { ...purifyConfig, IN_PLACE: true }

/** Sanitises HTML (the purifyConfig allowlist). It is parsed into an element
 * of one inert document kept for the purpose and sanitised there, in place:
 * DOMPurify given a string makes a new document for each text, and WebKit
 * keeps each one until the page's next full garbage collection (about 60 KB
 * apiece: scrolling back through a long conversation formats hundreds of
 * answers). */
function sanitize(html: string): string {
  inert ??= document.implementation.createHTMLDocument('')
  const root = inert.createElement('span') // an allowed tag: the root is kept
  root.innerHTML = html
  DOMPurify.sanitize(root, inPlaceConfig)
  addCodeTools(root)
  const out = root.innerHTML
  root.replaceChildren()
  return out
}

/** The buttons of code block headers: Wrap (long lines) and Copy. They are
 * added after sanitising (the allowlist has no buttons: model text never
 * makes one) and act through the click handler of the component that shows
 * the HTML, by their data-code-action. */
function addCodeTools(root: Element) {
  for (const head of root.querySelectorAll('div.md-code-head')) {
    const doc = head.ownerDocument
    const tools = doc.createElement('span')
    tools.className = 'md-code-tools'
    const button = (action: string, text: string, title: string) => {
      const b = doc.createElement('button')
      b.type = 'button'
      b.className = 'md-code-btn'
      b.dataset.codeAction = action
      b.title = title
      b.textContent = text
      tools.appendChild(b)
      return b
    }
    button('wrap', t('markdown.wrap'), t('markdown.wrapTitle')).setAttribute('aria-pressed', 'false')
    const copy = button('copy', t('common.copy'), t('markdown.copyTitle'))
    copy.dataset.testid = 'code-copy'
    copy.setAttribute('aria-label', t('markdown.copyLabel'))
    head.appendChild(tools)
  }
}

/** Renders markdown to sanitised HTML. Safe for partial (streaming) text. Texts
 * that would take too long, and any failure of the parser or the sanitiser,
 * give escaped plain text (plainHtml). */
export function renderMarkdown(src: string): string {
  installHooks()
  const reason = plainReason(src)
  if (reason) return plainHtml(src, reason)
  try {
    return sanitize(marked.parse(src) as string)
  } catch {
    return plainHtml(src, 'error')
  }
}

/** Cuts a text into blocks that render the same one by one as together, for
 * an answer that is still streaming: a block ends at a blank line that is
 * followed by a line starting at the left margin, outside fenced code. (Lists
 * split at such a line render as two lists, which looks the same.) The last
 * block is the one still growing. */
export function splitBlocks(src: string): string[] {
  const blocks: string[] = []
  let start = 0
  let fence = '' // the opening fence of the code block we are in
  let blank = false
  let pos = 0
  while (pos < src.length) {
    let end = src.indexOf('\n', pos)
    if (end < 0) end = src.length
    const line = src.slice(pos, end)
    const trimmed = line.trimStart()
    const indent = line.length - trimmed.length
    if (fence) {
      if (indent <= 3 && trimmed.startsWith(fence) && trimmed.slice(fence.length).trim() === '') fence = ''
    } else if (indent <= 3 && /^(`{3,}|~{3,})/.test(trimmed)) {
      if (blank && indent === 0 && pos > start) {
        blocks.push(src.slice(start, pos))
        start = pos
      }
      fence = /^(`{3,}|~{3,})/.exec(trimmed)![1]
    } else if (trimmed === '') {
      blank = true
      pos = end + 1
      continue
    } else if (blank && indent === 0 && pos > start) {
      blocks.push(src.slice(start, pos))
      start = pos
    }
    blank = false
    pos = end + 1
  }
  blocks.push(src.slice(start))
  return blocks
}

/** A link (or image) still being typed at the end of a streaming text:
 * "[label", "[label]" or "[label](partial-url", after a space, an opening
 * parenthesis or the start of the line, with no newline or bracket inside. */
const openLinkAtEnd = /(^|[\s(])(!?)\[([^[\]\n]*)(?:\](?:\([^()\s]*(?:\s+(?:"[^"\n]*"?)?)?)?)?$/

/** The text of a block still streaming in, with a link being typed at its
 * end shown as its label (an image being typed as nothing), so the reader
 * never sees the raw "[label](https://ex" before the link is complete. Text
 * inside code (an open fence, an open `span`) is left as it is. */
export function hideOpenLink(block: string): string {
  const lineStart = block.lastIndexOf('\n') + 1
  const line = block.slice(lineStart)
  if (!line.includes('[')) return block
  // inside a fenced code block that is still open
  if ((block.match(/^ {0,3}(`{3,}|~{3,})/gm)?.length ?? 0) % 2 === 1) return block
  // inside an inline code span that is still open
  if ((line.match(/`/g)?.length ?? 0) % 2 === 1) return block
  const m = openLinkAtEnd.exec(line)
  if (!m) return block
  const shown = m[2] ? '' : m[3]
  return block.slice(0, lineStart + m.index) + m[1] + shown
}

/** The HTML of one block of splitBlocks: formatted (cached, unless `cached` is
 * false: a block still growing is never asked for twice), or plain text for a
 * block too long to format in one go (limits.blockChars). */
export function renderBlock(block: string, cached = true): string {
  if (block.length > limits.blockChars && !/^ {0,3}(`{3,}|~{3,})/.test(block)) {
    return `<pre class="md-plain">${escapeHtml(block)}</pre>`
  }
  return cached ? renderMarkdownCached(block) : renderMarkdown(block)
}

const cache = new Map<string, string>()
const cacheLimit = 600
let cacheLanguage = ''

/** renderMarkdown with a small cache keyed by the text (rows of a long list
 * re-render as they scroll in and out). */
export function renderMarkdownCached(src: string): string {
  // the HTML holds the words of the code blocks' buttons
  if (cacheLanguage !== i18n.language) {
    cache.clear()
    cacheLanguage = i18n.language
  }
  const hit = cache.get(src)
  if (hit !== undefined) {
    cache.delete(src)
    cache.set(src, hit)
    return hit
  }
  const html = renderMarkdown(src)
  cache.set(src, html)
  if (cache.size > cacheLimit) cache.delete(cache.keys().next().value!)
  return html
}

/** A line of each highlighted language (the type asks for every one). */
const warmUpCode: Record<keyof typeof languages, string> = {
  bash: 'echo "$HOME" # home',
  css: 'a { color: red; }',
  diff: '+ added line',
  go: 'func f() string { return "x" }',
  javascript: 'const a = "x" // note',
  json: '{"a": 1}',
  python: 'def f(): return "x"',
  typescript: 'const a: string = "x"',
  xml: '<a href="x">t</a>',
  yaml: 'a: "x"',
  markdown: '# Title',
  sql: 'SELECT 1 FROM t;',
}

/** Text that takes every part of the pipeline: the block and inline kinds
 * the chat shows, and one code block per highlighted language. */
const warmUpSample = [
  '### Heading\n\nText with **bold**, *emphasis*, `code` and a [link](https://example.com).',
  '- one\n- two\n\n1. first\n\n> quoted\n\n| a | b |\n|---|---|\n| 1 | 2 |',
  ...Object.entries(warmUpCode).map(([lang, code]) => '```' + lang + '\n' + code + '\n```'),
].join('\n\n')

/** Renders a sample once through the whole pipeline, so the parser, the
 * sanitiser and every highlighting grammar are compiled before the first
 * conversation is opened rather than while it is (the first render costs
 * tens of milliseconds more than the next). Returns the HTML; the cache is
 * left alone. */
export function warmUp(): string {
  return renderMarkdown(warmUpSample)
}

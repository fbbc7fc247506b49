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

/** Highlighted HTML of a code text (escaped when the language is unknown). */
export function highlight(code: string, lang: string): { html: string; language: string } {
  const name = lang.trim().split(/\s+/)[0]?.toLowerCase() ?? ''
  if (name && hljs.getLanguage(name)) {
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
    code({ text, lang }: Tokens.Code) {
      const { html, language } = highlight(text, lang ?? '')
      const label = language ? `<span class="md-code-lang">${escapeHtml(language)}</span>` : ''
      return `<pre class="md-code">${label}<code class="hljs${language ? ` language-${language}` : ''}">${html}</code></pre>\n`
    },
  },
})

const purifyConfig = {
  ALLOWED_TAGS: [
    'a', 'b', 'blockquote', 'br', 'code', 'del', 'em', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'i', 'li', 'ol', 'p',
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

/** Renders markdown to sanitised HTML. Safe for partial (streaming) text. */
export function renderMarkdown(src: string): string {
  installHooks()
  let html: string
  try {
    html = marked.parse(src) as string
  } catch {
    html = `<p>${escapeHtml(src)}</p>`
  }
  return DOMPurify.sanitize(html, purifyConfig) as string
}

const cache = new Map<string, string>()
const cacheLimit = 600

/** renderMarkdown with a small cache keyed by the text (rows of a long list
 * re-render as they scroll in and out). */
export function renderMarkdownCached(src: string): string {
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

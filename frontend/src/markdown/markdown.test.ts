import { pathological } from '../test/pathological'
import { allowedHref, hideOpenLink, highlightedLanguages, limits, plainReason, renderMarkdown, splitBlocks, warmUp } from './markdown'

/** Parses rendered HTML into a detached document for inspection. */
function dom(html: string) {
  const doc = document.implementation.createHTMLDocument('t')
  doc.body.innerHTML = html
  return doc.body
}

/** Everything that could run code or load something must be absent. */
function assertInert(html: string) {
  const body = dom(html)
  expect(body.querySelector('script, iframe, object, embed, svg, math, img, video, audio, source, style, link, meta, base, form, frame, frameset')).toBeNull()
  for (const el of body.querySelectorAll('*')) {
    for (const attr of el.getAttributeNames()) {
      expect(attr.startsWith('on'), `${el.tagName} has ${attr}`).toBe(false)
      expect(['style', 'src', 'srcset', 'action', 'formaction', 'xlink:href', 'background'].includes(attr), `${el.tagName} has ${attr}`).toBe(false)
    }
    const href = el.getAttribute('href')
    if (href !== null) expect(href).toMatch(/^(https?:|mailto:)/i)
  }
}

describe('renderMarkdown: XSS corpus', () => {
  const corpus: [string, string][] = [
    ['script tag', '<script>alert(1)</script>'],
    ['script in a paragraph', 'hello <script>window.x=1</script> world'],
    ['img onerror', '<img src=x onerror="alert(1)">'],
    ['event handler on a div', '<div onclick="alert(1)">click</div>'],
    ['event handler, odd casing', '<a href="https://ok" OnMouseOver="alert(1)">x</a>'],
    ['javascript: link', '[click](javascript:alert(1))'],
    ['javascript: link with spaces and case', '[click]( JaVaScRiPt:alert(1) )'],
    ['javascript: link, entity-encoded', '[click](&#106;avascript:alert(1))'],
    ['data: link', '[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)'],
    ['vbscript: link', '[x](vbscript:msgbox(1))'],
    ['file: link', '[x](file:///etc/passwd)'],
    ['relative link', '[x](/app/route)'],
    ['autolink javascript', '<javascript:alert(1)>'],
    ['reference link', '[x][r]\n\n[r]: javascript:alert(1)'],
    ['svg with script', '<svg><script>alert(1)</script></svg>'],
    ['svg onload', '<svg onload="alert(1)"></svg>'],
    ['iframe', '<iframe src="https://evil.example"></iframe>'],
    ['iframe srcdoc', '<iframe srcdoc="<script>alert(1)</script>"></iframe>'],
    ['object/embed', '<object data="x.swf"></object><embed src="x.swf">'],
    ['remote image', '![tracker](https://evil.example/pixel.png)'],
    ['data image', '![x](data:image/png;base64,iVBORw0KGgo=)'],
    ['html image with srcset', '<img srcset="https://evil.example/a.png 1x">'],
    ['style tag', '<style>body{display:none}</style>'],
    ['style attribute', '<p style="background:url(https://evil.example)">x</p>'],
    ['link tag', '<link rel="stylesheet" href="https://evil.example/x.css">'],
    ['meta refresh', '<meta http-equiv="refresh" content="0;url=https://evil.example">'],
    ['base tag', '<base href="https://evil.example/">'],
    ['form', '<form action="https://evil.example"><button formaction="javascript:alert(1)">x</button></form>'],
    ['math', '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>'],
    ['mXSS nesting', '<noscript><p title="</noscript><img src=x onerror=alert(1)>">'],
    ['broken tag mid-stream', 'partial <img src=x onerr'],
    ['unclosed code fence mid-stream', '```js\nconst a = "<script>alert(1)</script>"'],
    ['unclosed link mid-stream', 'see [the docs](javascript:alert('],
    ['html comment', '<!-- <script>alert(1)</script> -->'],
    ['markdown title attribute injection', '[x](https://ok.example "a\\" onmouseover=\\"alert(1)")'],
    ['table with html', '| a | b |\n|---|---|\n| <img src=x onerror=alert(1)> | <b onclick=1>x</b> |'],
  ]

  it.each(corpus)('%s is inert', (_, src) => {
    const html = renderMarkdown(src)
    assertInert(html)
  })

  it('shows raw HTML as text instead of interpreting it', () => {
    const body = dom(renderMarkdown('before <b>bold?</b> <script>alert(1)</script> after'))
    expect(body.querySelector('b')).toBeNull()
    expect(body.textContent).toContain('<script>alert(1)</script>')
    expect(body.textContent).toContain('<b>bold?</b>')
  })

  it('keeps http, https and mailto links', () => {
    const body = dom(renderMarkdown('[a](https://example.com/x?y=1) [b](http://example.org) [c](mailto:me@example.com) <https://auto.example>'))
    expect([...body.querySelectorAll('a')].map((a) => a.getAttribute('href'))).toEqual([
      'https://example.com/x?y=1',
      'http://example.org/',
      'mailto:me@example.com',
      'https://auto.example/',
    ])
    for (const a of body.querySelectorAll('a')) expect(a.getAttribute('rel')).toBe('noopener noreferrer')
  })

  it('turns refused links into plain text and images into a placeholder', () => {
    const body = dom(renderMarkdown('[click me](javascript:alert(1)) ![a cat](https://img.example/cat.png)'))
    expect(body.querySelector('a')).toBeNull()
    expect(body.textContent).toContain('click me')
    expect(body.querySelector('.md-image-blocked')?.textContent).toBe('[image: a cat]')
  })

  it('renders ordinary markdown', () => {
    const body = dom(renderMarkdown('# Title\n\n**bold** and *em*\n\n- a\n- b\n\n1. one\n\n> quote\n\n| h |\n|---|\n| c |\n\n- [x] done'))
    expect(body.querySelector('h1')?.textContent).toBe('Title')
    expect(body.querySelector('strong')?.textContent).toBe('bold')
    expect(body.querySelector('em')?.textContent).toBe('em')
    expect(body.querySelectorAll('li').length).toBeGreaterThanOrEqual(3)
    expect(body.querySelector('blockquote')).not.toBeNull()
    expect(body.querySelector('table td')?.textContent).toBe('c')
    expect(body.querySelector('input')).toBeNull()
    expect(body.querySelector('.md-task')?.textContent).toBe('☑')
  })

  it('highlights code blocks of known languages and escapes the rest', () => {
    const body = dom(renderMarkdown('```go\nfunc main() {}\n```\n\n```nosuchlang\n<b>x</b>\n```'))
    const [go, other] = body.querySelectorAll('pre code')
    expect(go.className).toContain('language-go')
    expect(go.querySelector('.hljs-keyword')?.textContent).toBe('func')
    expect(other.querySelector('b')).toBeNull()
    expect(other.textContent?.trim()).toBe('<b>x</b>')
  })

  it('is stable on text cut anywhere (streaming)', () => {
    const full = '## Plan\n\nSee [docs](https://example.com) and `code`.\n\n```ts\nconst x = 1\n```\n\n<img src=x onerror=alert(1)>'
    for (let i = 0; i <= full.length; i++) assertInert(renderMarkdown(full.slice(0, i)))
  })
})

describe('allowedHref', () => {
  it.each([
    ['https://a.example/x', 'https://a.example/x'],
    ['HTTP://A.EXAMPLE', 'http://a.example/'],
    ['mailto:x@y.z', 'mailto:x@y.z'],
    [' https://a.example ', 'https://a.example/'],
    ['javascript:alert(1)', null],
    ['data:text/html,x', null],
    ['/relative', null],
    ['//protocol-relative.example', null],
    ['ftp://x.example', null],
    ['https://', null],
  ])('%s -> %s', (raw, want) => {
    expect(allowedHref(raw)).toBe(want)
  })
})

describe('warmUp', () => {
  it('takes every highlighted language and the common block kinds through the pipeline', () => {
    const html = warmUp()
    assertInert(html)
    const body = dom(html)
    const langs = [...body.querySelectorAll('pre.md-code code')].map((c) => c.className.replace(/^hljs language-/, ''))
    expect(langs).toEqual(highlightedLanguages)
    for (const code of body.querySelectorAll('pre.md-code code')) expect(code.querySelector('[class^="hljs-"]'), code.className).not.toBeNull()
    for (const sel of ['h3', 'strong', 'em', 'p code', 'a.md-link', 'ul li', 'ol li', 'blockquote', 'table td']) expect(body.querySelector(sel), sel).not.toBeNull()
  })
})

describe('renderMarkdown: bounded work', () => {
  it('does not highlight a very long line of code, and keeps all of it', () => {
    const body = dom(renderMarkdown(pathological.longCodeLine))
    expect(body.querySelector('pre.md-code code')?.textContent).toBe('x'.repeat(100_000))
    expect(body.querySelector('[class^="hljs-"]')).toBeNull()
  })

  it('does not highlight long code, but still highlights ordinary code', () => {
    const long = 'const a = 1 // note\n'.repeat(Math.ceil(limits.highlightChars / 20) + 10)
    expect(dom(renderMarkdown('```js\n' + long + '```')).querySelector('[class^="hljs-"]')).toBeNull()
    expect(dom(renderMarkdown('```js\nconst a = 1 // note\n```')).querySelector('.hljs-keyword')).not.toBeNull()
  })

  it.each([
    ['autolinks', pathological.autolinks, 'long', 'too long'],
    ['autolinks (a shorter text)', pathological.autolinks.slice(0, 150_000), 'links', 'too many links'],
    ['wideTable', pathological.wideTable, 'wide', 'table too wide'],
    ['nestedList', pathological.nestedList, 'long', 'too long'],
    ['nestedOneLine', pathological.nestedOneLine, 'nested', 'nests too deeply'],
    ['nestedQuotes', pathological.nestedQuotes, 'nested', 'nests too deeply'],
  ])('shows %s as plain text, all of it, saying why', (_, text, reason, note) => {
    expect(plainReason(text)).toBe(reason)
    const html = renderMarkdown(text)
    const body = dom(html)
    expect(body.querySelector('.md-plain-note')?.textContent).toContain(note)
    expect(body.querySelector('pre.md-plain')?.textContent).toBe(text)
    expect(body.querySelector('a, table, li, blockquote')).toBeNull()
    assertInert(html)
  })

  it('shows a text with more links than the limit as plain text, and formats one under it', () => {
    const links = (n: number) => Array.from({ length: n }, (_, i) => `see https://example.com/${i}`).join('\n')
    expect(plainReason(links(limits.links + 1))).toBe('links')
    expect(plainReason(links(limits.links))).toBe('')
    expect(dom(renderMarkdown(links(50))).querySelectorAll('a')).toHaveLength(50)
  })

  it('keeps formatting ordinary answers, lists and tables included', () => {
    const normal = '# Title\n\n' + '- a\n  - b\n    - c\n\n| x | y |\n|---|---|\n| 1 | 2 |\n\n> quote\n\n---\n\n1. one\n2. two\n'
    expect(plainReason(normal)).toBe('')
    const body = dom(renderMarkdown(normal))
    expect(body.querySelectorAll('li')).toHaveLength(5)
    expect(body.querySelector('table')).not.toBeNull()
    expect(plainReason('-'.repeat(500) + '\n' + '1'.repeat(300) + ' is a number')).toBe('')
  })

  it('escapes what it shows as plain text', () => {
    const html = renderMarkdown('<script>window.x=1</script>\n' + '> '.repeat(2000))
    assertInert(html)
    expect(dom(html).querySelector('pre.md-plain')?.textContent).toContain('<script>')
  })
})

describe('splitBlocks', () => {
  const sample = [
    '## Plan',
    '',
    'First paragraph with **bold**.',
    'Still the first paragraph.',
    '',
    '```go',
    'func main() {',
    '',
    '}',
    '```',
    '',
    '- one',
    '',
    '  continued inside the item',
    '- two',
    '',
    'Last paragraph',
  ].join('\n')

  it('cuts at blank lines before the margin, never inside code, and loses nothing', () => {
    const blocks = splitBlocks(sample)
    expect(blocks.join('')).toBe(sample)
    expect(blocks).toHaveLength(5)
    expect(blocks[2]).toBe('```go\nfunc main() {\n\n}\n```\n\n')
    expect(blocks[3]).toContain('continued inside the item')
    expect(splitBlocks('```\nopen fence\n\nstill code')).toHaveLength(1)
    expect(splitBlocks('')).toEqual([''])
  })

  it('renders block by block as the whole does', () => {
    const whole = dom(renderMarkdown(sample)).innerHTML.replace(/\n/g, '')
    const parts = splitBlocks(sample)
      .map((b) => dom(renderMarkdown(b)).innerHTML)
      .join('')
      .replace(/\n/g, '')
    // lists split at a blank line become two lists; everything else is identical
    expect(parts.replace('</ul><ul>', '')).toBe(whole)
  })

  it('keeps its cost per chunk independent of what came before', () => {
    let text = ''
    for (let i = 0; i < 400; i++) {
      text += `Paragraph ${i} with some *words* in it.\n\n`
    }
    const blocks = splitBlocks(text + 'the growing tail')
    expect(blocks).toHaveLength(401)
    expect(blocks[400]).toBe('the growing tail')
  })
})

describe('renderMarkdown: the sanitiser', () => {
  it('makes no document per text (one inert document serves them all)', () => {
    const parse = vi.spyOn(DOMParser.prototype, 'parseFromString')
    const create = vi.spyOn(document.implementation, 'createHTMLDocument')
    for (let i = 0; i < 5; i++) renderMarkdown(`Answer ${i} with **bold**, a [link](https://example.com/${i}) and <img src=x onerror=alert(${i})>`)
    expect(parse).not.toHaveBeenCalled()
    expect(create.mock.calls.length).toBeLessThanOrEqual(1)
    parse.mockRestore()
    create.mockRestore()
  })

  it('gives the same HTML for the same text, whatever was sanitised before', () => {
    const text = '# T\n\n- a <script>alert(1)</script>\n- [x](javascript:alert(1))\n\n```js\nconst a = "<b>"\n```'
    const first = renderMarkdown(text)
    renderMarkdown('<a href="https://example.com" onclick="x()">y</a> **z**')
    expect(renderMarkdown(text)).toBe(first)
    expect(first).not.toMatch(/<script|javascript:|onclick/i)
  })
})

describe('hideOpenLink: links being typed while an answer streams', () => {
  it.each([
    ['a label being typed', 'See [the do', 'See the do'],
    ['a label closed, the URL not begun', 'See [the docs]', 'See the docs'],
    ['a URL being typed', 'See [the docs](https://exa', 'See the docs'],
    ['a URL and a title being typed', 'See [the docs](https://example.com "Docs', 'See the docs'],
    ['at the start of a line', 'one\n[two](http', 'one\ntwo'],
    ['in parentheses', 'text ([ref](https://x', 'text (ref'],
    ['an image being typed', 'Look: ![chart](https://ex', 'Look: '],
    ['a complete link', 'See [the docs](https://example.com) now', 'See [the docs](https://example.com) now'],
    ['a complete link at the end', 'See [the docs](https://example.com)', 'See [the docs](https://example.com)'],
    ['an index, not a link', 'a[i', 'a[i'],
    ['inside an open code span', 'use `arr[0', 'use `arr[0'],
    ['inside an open code fence', '```go\nx := [a', '```go\nx := [a'],
    ['after a closed code fence', '```\nx\n```\nsee [doc', '```\nx\n```\nsee doc'],
    ['no bracket', 'plain text', 'plain text'],
    ['an earlier line is left alone', 'see [a\nand more', 'see [a\nand more'],
  ])('%s', (_, src, want) => {
    expect(hideOpenLink(src)).toBe(want)
  })

  it('never shows the raw syntax of a link while it is typed, character by character', () => {
    const full = 'Read [the guide](https://example.com/guide "Guide") and ![a chart](https://example.com/c.png) first.'
    for (let n = 0; n <= full.length; n++) {
      const shown = hideOpenLink(full.slice(0, n))
      expect(shown, full.slice(0, n)).not.toMatch(/\]\([^)]*$|(^|\s)!?\[[^\]]*$|\]$/)
    }
    expect(hideOpenLink(full)).toBe(full)
  })

  it('keeps the rendered text of random input free of surprises (never throws, only shortens the last line)', () => {
    let seed = 7
    const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff)
    const alphabet = 'ab [](!)`\n"h:/.~'
    for (let i = 0; i < 2000; i++) {
      let src = ''
      for (let n = Math.floor(rand() * 40); n > 0; n--) src += alphabet[Math.floor(rand() * alphabet.length)]
      const out = hideOpenLink(src)
      expect(out.length).toBeLessThanOrEqual(src.length)
      const head = src.slice(0, src.lastIndexOf('\n') + 1)
      expect(out.startsWith(head)).toBe(true)
    }
  })
})

describe('code blocks', () => {
  it('have a header with the language, Wrap and Copy', () => {
    const body = dom(renderMarkdown('```go\nfunc main() {}\n```\n\n```\nplain\n```\n\n```weirdlang\nx\n```'))
    const blocks = [...body.querySelectorAll('.md-codeblock')]
    expect(blocks).toHaveLength(3)
    expect(blocks.map((b) => b.querySelector('.md-code-lang')?.textContent)).toEqual(['go', 'text', 'weirdlang'])
    for (const b of blocks) {
      const buttons = [...b.querySelectorAll('.md-code-head button')] as HTMLButtonElement[]
      expect(buttons.map((x) => x.dataset.codeAction)).toEqual(['wrap', 'copy'])
      expect(buttons.every((x) => x.type === 'button')).toBe(true)
      expect(b.querySelector('pre.md-code code')).not.toBeNull()
    }
    expect(blocks[0].querySelector('[data-testid="code-copy"]')?.getAttribute('aria-label')).toBe('Copy code')
  })

  it('gets no buttons from the text of the answer', () => {
    const body = dom(renderMarkdown('<div class="md-code-head"><button data-code-action="copy">x</button></div>\n\ntext <button>b</button>'))
    expect(body.querySelector('button')).toBeNull()
    expect(body.querySelector('.md-code-head')).toBeNull()
  })
})

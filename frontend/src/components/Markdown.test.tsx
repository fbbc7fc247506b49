import { render, screen, waitFor } from '@testing-library/react'
import DOMPurify from 'dompurify'
import type { ReactNode } from 'react'
import { pathological } from '../test/pathological'
import { StoresProvider, createStores, type Stores } from '../stores'
import { createFakeBridge } from '../test/fakeBridge'
import { renderWithStores } from '../test/render'
import { limits } from '../markdown/markdown'
import { LiveMarkdown, Markdown, MarkdownBoundary, warmUpMarkdownView } from './Markdown'



describe('warmUpMarkdownView', () => {
  it('lays the sample out hidden and off screen, then leaves the page as it was', () => {
    const root = document.createElement('div')
    document.body.appendChild(root)
    const seen = new MutationObserver(() => {})
    seen.observe(root, { childList: true })
    warmUpMarkdownView(root)
    const added = seen.takeRecords().flatMap((r) => [...r.addedNodes]) as HTMLElement[]
    seen.disconnect()
    expect(added).toHaveLength(1)
    const el = added[0]
    expect(el.className).toBe('md')
    expect(el.getAttribute('aria-hidden')).toBe('true')
    expect(el.style.visibility).toBe('hidden')
    expect(el.style.left).toBe('-10000px')
    expect(el.querySelectorAll('pre.md-code').length).toBeGreaterThan(5)
    expect(root.childNodes).toHaveLength(0)
    root.remove()
  })
})

describe('LiveMarkdown', () => {
  it('renders the parts already complete once; only the growing end changes', () => {
    const stores: Stores = createStores(createFakeBridge().bridge)
    const live = (text: string) => (
      <StoresProvider stores={stores}>
        <LiveMarkdown text={text} />
      </StoresProvider>
    )
    // over 4 KB of complete paragraphs (a full unit), then a code block and a growing tail
    let text = Array.from({ length: 120 }, (_, i) => `Paragraph ${i} with **bold** text in it.`).join('\n\n') + '\n\n```js\nconst a = 1\n```\n\nThe tail is gro'
    const { container, rerender } = render(live(text))
    const first = container.querySelector('.md-block')!
    expect(first.querySelectorAll('strong').length).toBeGreaterThan(50)
    const changes = new MutationObserver(() => {})
    changes.observe(first, { childList: true, subtree: true, characterData: true, attributes: true })
    for (const piece of ['wing', ' word by word', '.\n\nA new paragraph', ' begins.']) {
      text += piece
      rerender(live(text))
    }
    expect(changes.takeRecords()).toHaveLength(0)
    expect(container.querySelector('.md-block')).toBe(first)
    expect(container.querySelector('.md-live')?.textContent).toContain('The tail is growing word by word.')
    expect(container.querySelector('.md-live')?.textContent).toContain('A new paragraph begins.')
    expect(container.querySelectorAll('strong')).toHaveLength(120)
    expect(container.querySelector('pre.md-code')).not.toBeNull()
  })

  it('formats each complete block once while a long answer streams in small chunks', () => {
    const stores: Stores = createStores(createFakeBridge().bridge)
    const live = (text: string) => (
      <StoresProvider stores={stores}>
        <LiveMarkdown text={text} />
      </StoresProvider>
    )
    // about 10 KB of short paragraphs and code blocks, arriving 16 characters at a time
    const answer = Array.from({ length: 150 }, (_, i) =>
      i % 5 === 4 ? '```go\nfunc F' + i + '() {}\n```' : `Paragraph ${i} says **something** short.`,
    ).join('\n\n')
    let formatted = 0
    const real = DOMPurify.sanitize.bind(DOMPurify) as (dirty: string | Node, cfg: object) => unknown
    const sanitize = vi.spyOn(DOMPurify, 'sanitize').mockImplementation(((dirty: string | Node, cfg: object) => {
      formatted += typeof dirty === 'string' ? dirty.length : (dirty as Element).innerHTML.length
      return real(dirty, cfg)
    }) as typeof DOMPurify.sanitize)
    const { container, rerender } = render(live(answer.slice(0, 16)))
    for (let end = 32; end < answer.length + 16; end += 16) rerender(live(answer.slice(0, end)))
    sanitize.mockRestore()
    expect(formatted).toBeGreaterThan(0)
    const final = container.querySelector('.md-live')!.innerHTML.length
    // Each block once, plus the growing end again at each chunk: a few times
    // the answer at most (formatting the KBs already complete again at every
    // block would be tens of times).
    expect(formatted).toBeLessThan(4 * final)
    expect(container.querySelectorAll('strong')).toHaveLength(120)
    expect(container.querySelectorAll('pre.md-code')).toHaveLength(30)
  })

  it('shows a long block still arriving as plain text, formatted once it is complete', async () => {
    const stores: Stores = createStores(createFakeBridge().bridge)
    const long = 'word **bold** '.repeat(1000) // one paragraph, over limits.liveBlockChars
    const view = (text: string) => (
      <StoresProvider stores={stores}>
        <LiveMarkdown text={text} />
      </StoresProvider>
    )
    const { container, rerender } = render(view('# Title\n\n' + long))
    expect(container.querySelector('[data-testid="md-growing"]')?.textContent).toBe(long)
    expect(container.querySelectorAll('strong')).toHaveLength(0)
    rerender(view('# Title\n\n' + long + '\n\nNext'))
    expect(container.querySelector('[data-testid="md-growing"]')).toBeNull()
    await waitFor(() => expect(container.querySelectorAll('strong')).toHaveLength(1000))
  })
})

describe('Markdown, long texts', () => {
  it('formats a long answer block by block over several frames, all of it in the end', async () => {
    const stores: Stores = createStores(createFakeBridge().bridge)
    const text = Array.from({ length: 600 }, (_, i) => `Paragraph ${i} with **bold** and \`code\`.`).join('\n\n')
    expect(text.length).toBeGreaterThan(limits.progressiveChars)
    const { container } = render(
      <StoresProvider stores={stores}>
        <Markdown text={text} />
      </StoresProvider>,
    )
    expect(container.querySelectorAll('.md-block').length).toBeGreaterThan(3)
    expect(container.textContent).toContain('Paragraph 599 with')
    await waitFor(() => expect(container.querySelectorAll('.md-pending')).toHaveLength(0), { timeout: 20000 })
    expect(container.querySelectorAll('strong')).toHaveLength(600)
  })

  it('shows one huge paragraph as plain text, fenced code as code', () => {
    const stores: Stores = createStores(createFakeBridge().bridge)
    const huge = 'word **bold** '.repeat(2000)
    const code = '```\n' + 'let x = 1\n'.repeat(3000) + '```'
    const { container } = render(
      <StoresProvider stores={stores}>
        <Markdown text={'# Title\n\n' + huge + '\n\n' + code} />
      </StoresProvider>,
    )
    const blocks = container.querySelectorAll('.md-block')
    expect(blocks).toHaveLength(3)
    expect(blocks[1].querySelector('pre.md-plain')?.textContent).toBe(huge + '\n\n')
    expect(blocks[2].querySelector('pre.md-code')).not.toBeNull()
  })
})

describe('Markdown, very long plain text', () => {
  it('lays out the start of a huge answer and the rest on request', async () => {
    const stores: Stores = createStores(createFakeBridge().bridge)
    const { container } = render(
      <StoresProvider stores={stores}>
        <Markdown text={pathological.autolinks} />
      </StoresProvider>,
    )
    expect(container.querySelector('pre.md-plain')?.textContent).toBe(pathological.autolinks.slice(0, limits.plainShowChars))
    expect(container.textContent).toContain(`${(pathological.autolinks.length - limits.plainShowChars).toLocaleString('en-US')} more characters`)
    screen.getByTestId('md-show-all').click()
    await waitFor(() => expect(container.querySelector('pre.md-plain')?.textContent).toBe(pathological.autolinks))
  })
})

describe('MarkdownBoundary', () => {
  it('shows the raw text when rendering throws, and tries again with a new text', () => {
    function Boom({ text }: { text: string }): ReactNode {
      if (text.includes('boom')) throw new RangeError('Maximum call stack size exceeded')
      return <p>{text}</p>
    }
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => {})
    const { rerender } = render(
      <MarkdownBoundary text="- boom">
        <Boom text="- boom" />
      </MarkdownBoundary>,
    )
    expect(screen.getByTestId('md-raw').textContent).toContain('- boom')
    expect(screen.getByTestId('md-raw').textContent).toContain('could not be formatted')
    rerender(
      <MarkdownBoundary text="fine">
        <Boom text="fine" />
      </MarkdownBoundary>,
    )
    expect(screen.queryByTestId('md-raw')).toBeNull()
    expect(screen.getByText('fine')).toBeInTheDocument()
    quiet.mockRestore()
  })

  it('keeps the pathological answers rendering without throwing', () => {
    const { bridge } = createFakeBridge()
    for (const text of Object.values(pathological)) {
      const { container, unmount } = renderWithStores(<Markdown text={text} />, bridge)
      expect(container.querySelector('.md')).not.toBeNull()
      unmount()
    }
  })
})

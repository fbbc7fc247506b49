import { warmUpMarkdownView } from './Markdown'

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

import { act, fireEvent, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { msg } from '../../test/entries'
import { createFakeBridge } from '../../test/fakeBridge'
import { renderWithStores } from '../../test/render'
import { ChatView } from './ChatView'

const sized = ['offsetHeight', 'offsetWidth', 'clientHeight', 'clientWidth'] as const
beforeAll(() => {
  for (const p of sized) Object.defineProperty(HTMLElement.prototype, p, { configurable: true, get: () => (p.endsWith('Height') ? 600 : 800) })
})
afterAll(() => {
  for (const p of sized) delete (HTMLElement.prototype as unknown as Record<string, unknown>)[p]
})

function renderChat() {
  const fake = createFakeBridge({ conversations: [{ meta: { id: 'c1', title: 'Release' }, entries: [msg('u1', 'user', 'hi')] }] })
  renderWithStores(<ChatView conversationId="c1" />, fake.bridge).stores.chat.actions.start() // as the workspace does
  return fake
}

describe('attachments in the composer', () => {
  it('a picked file is a chip, goes with the message (even without text) and shows on it', async () => {
    const fake = renderChat()
    const user = userEvent.setup()
    const input = (await screen.findByTestId('composer-attach-input')) as HTMLInputElement
    await user.upload(input, new File(['ship on friday\n'], 'notes.md', { type: 'text/markdown' }))
    const chip = await screen.findByTestId('attachment-chip')
    expect(chip).toHaveTextContent('notes.md')
    expect(screen.getByTestId('composer-send')).toBeEnabled()
    await user.click(screen.getByTestId('composer-send'))
    await waitFor(() => expect(fake.sent).toHaveLength(1))
    expect(fake.sent[0].text).toBe('')
    expect(fake.sent[0].attachments).toEqual([{ name: 'notes.md', data: btoa('ship on friday\n') }])
    expect(screen.queryByTestId('attachment-chip')).toBeNull()
    act(() => fake.finish('c1'))
    const bubble = await screen.findByTestId('msg-attachments')
    expect(bubble).toHaveTextContent('notes.md')
  })

  it('a dropped image is attached; a file too big is refused in words; a chip can be taken off', async () => {
    renderChat()
    const composer = await screen.findByTestId('composer')
    const png = new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], 'shot.png', { type: 'image/png' })
    const big = new File(['x'], 'huge.log', { type: 'text/plain' })
    Object.defineProperty(big, 'size', { value: 25 * 1024 * 1024 })
    fireEvent.drop(composer, { dataTransfer: { files: [png, big], types: ['Files'] } })
    const chip = await screen.findByTestId('attachment-chip')
    expect(chip).toHaveTextContent('shot.png')
    expect(chip.querySelector('img')).not.toBeNull()
    expect(screen.getByTestId('attachment-error')).toHaveTextContent('huge.log is 25.0 MB, over the 20.0 MB a file may have')
    await userEvent.click(within(chip).getByTestId('attachment-remove'))
    expect(screen.queryByTestId('attachment-chip')).toBeNull()
  })
})

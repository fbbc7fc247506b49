import { applyLanguage } from '../i18n'
import { createFakeBridge } from '../test/fakeBridge'
import { createDisplayStore } from './displayStore'
import { createNotifyStore, notificationOf } from './notifyStore'

const memory = () => {
  const map = new Map<string, string>()
  return { getItem: (k: string) => map.get(k) ?? null, setItem: (k: string, v: string) => void map.set(k, v) }
}
const task = (over: Partial<Parameters<typeof notificationOf>[0]> = {}) => ({ conversationId: 'c1', taskId: 't1', kind: 'chat', title: 'Offsite planning', ...over })

describe('desktop notifications', () => {
  afterEach(() => applyLanguage('en'))

  function setup() {
    const fake = createFakeBridge()
    const display = createDisplayStore(memory())
    const notify = createNotifyStore(fake.bridge, display, window)
    const stop = notify.actions.start()
    return { fake, display, notify, stop }
  }

  it('says a reply, a run and a created conversation finished, and when one failed', () => {
    expect(notificationOf(task())).toEqual({ title: 'Reply ready', body: 'Offsite planning' })
    expect(notificationOf(task({ kind: 'run' }))).toEqual({ title: 'Run finished', body: 'Offsite planning' })
    expect(notificationOf(task({ depth: 1, tool: 'conv.create', title: 'Review' }))).toEqual({ title: 'A created conversation answered', body: 'Review' })
    expect(notificationOf(task({ depth: 1, continues: true }))).toEqual({ title: 'Reply ready', body: 'Offsite planning' })
    expect(notificationOf(task({ error: { code: 'LLM_TIMEOUT', message: 'timed out' } }))).toEqual({ title: 'The reply ended with an error', body: 'Offsite planning' })
    expect(notificationOf(task({ title: ' ' })).body).toBe('a conversation')
    applyLanguage('zh-CN')
    expect(notificationOf(task({ kind: 'run' })).title).toBe('运行已完成')
  })

  it('notifies only while the window is in the background and the setting is on', () => {
    const { fake, display, stop } = setup()
    window.dispatchEvent(new Event('focus'))
    fake.emit('task:complete', task())
    expect(fake.notifications).toEqual([])

    window.dispatchEvent(new Event('blur'))
    fake.emit('task:complete', task({ kind: 'run', title: 'Write the brief' }))
    expect(fake.notifications).toEqual([{ title: 'Run finished', body: 'Write the brief' }])

    display.actions.setNotify(false)
    fake.emit('task:complete', task())
    expect(fake.notifications).toHaveLength(1)

    display.actions.setNotify(true)
    stop()
    fake.emit('task:complete', task())
    expect(fake.notifications).toHaveLength(1)
    expect(fake.listenerCount('task:complete')).toBe(0)
  })
})

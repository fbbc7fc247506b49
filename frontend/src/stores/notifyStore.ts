import type { Bridge, EventMap, Unsubscribe } from '../bridge'
import { t } from '../i18n'
import type { DisplayStore } from './displayStore'
import { createStore, type Store } from './store'

export interface NotifyState {
  /** The window has the focus (no notification while it has). */
  focused: boolean
}

export type NotifyStore = Store<NotifyState> & {
  actions: {
    /** Follows the window's focus and the tasks that finish; returns the unsubscribe. */
    start(): Unsubscribe
  }
}

type Task = EventMap['task:complete']

/** The notification for a task that finished: a reply, a run, or a
 * conversation another one created answering. */
export function notificationOf(task: Task): { title: string; body: string } {
  const name = task.title?.trim() || t('notify.untitled')
  const failed = !!task.error
  if (task.kind === 'run') return { title: failed ? t('notify.runFailed') : t('notify.run'), body: name }
  if ((task.depth ?? 0) > 0 && !task.continues) return { title: failed ? t('notify.subFailed') : t('notify.sub'), body: name }
  return { title: failed ? t('notify.replyFailed') : t('notify.reply'), body: name }
}

/** Desktop notifications when a reply, a run or a created conversation
 * finishes while the window is not focused, unless turned off in Settings. */
export function createNotifyStore(bridge: Bridge, display: DisplayStore, win: Window | null = typeof window === 'undefined' ? null : window): NotifyStore {
  const store = createStore<NotifyState>({ focused: win?.document.hasFocus() ?? true })
  return Object.assign(store, {
    actions: {
      start() {
        const onFocus = () => store.setState({ focused: true })
        const onBlur = () => store.setState({ focused: false })
        win?.addEventListener('focus', onFocus)
        win?.addEventListener('blur', onBlur)
        const off = bridge.events.on('task:complete', (task) => {
          if (store.getState().focused || !display.getState().notify) return
          const n = notificationOf(task)
          bridge.system.notify(n.title, n.body)
        })
        return () => {
          off()
          win?.removeEventListener('focus', onFocus)
          win?.removeEventListener('blur', onBlur)
        }
      },
    },
  })
}

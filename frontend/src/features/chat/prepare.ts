/** Formatting ahead: the markdown of the rows the user is likely to scroll to
 * next is formatted between frames, a few milliseconds at a time, so that a
 * row coming into view is drawn without formatting its text then (formatting
 * an answer costs a few milliseconds, and scrolling brings several into view
 * in one frame). */
import type { Row } from './messageRows'

/** The model text a row shows as markdown ('' for none). */
export function rowMarkdown(row: Row | undefined): string {
  switch (row?.kind) {
    case 'assistant':
      return row.text
    case 'error':
    case 'stopped':
      return row.partial
    default:
      return ''
  }
}

/** How many rows before the first one drawn are formatted ahead (the page of
 * older entries loaded next is formatted as the user comes near it). */
export const prepareAhead = 120
/** ... and after the last one drawn. */
export const prepareBehind = 20

/** The indexes of rows to format ahead, nearest first: those before the rows
 * drawn (from first-1 upwards: scrolling back through the history), then
 * those after them. */
export function prepareOrder(count: number, first: number, last: number): number[] {
  const out: number[] = []
  for (let i = first - 1; i >= 0 && i >= first - prepareAhead; i--) out.push(i)
  for (let i = last + 1; i < count && i <= last + prepareBehind; i++) out.push(i)
  return out
}

/** Runs fn after the next frame is drawn. */
export type AfterFrame = (fn: () => void) => () => void

const afterFrame: AfterFrame = (fn) => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const raf = requestAnimationFrame(() => {
    timer = setTimeout(fn, 0)
  })
  return () => {
    cancelAnimationFrame(raf)
    clearTimeout(timer)
  }
}

/** Time one turn between two frames may spend formatting (ms). */
export const prepareBudgetMs = 3

export interface Preparer {
  /** Tells which rows are drawn now (first..last of rows); formatting goes on
   * from there. */
  update(rows: readonly Row[], first: number, last: number): void
  stop(): void
}

/** Formats ahead, after each frame, within budgetMs: work(text) lists the
 * pieces of formatting a text still needs (none once it is formatted). */
export function createPreparer(
  work: (text: string) => (() => void)[],
  { schedule = afterFrame, budgetMs = prepareBudgetMs, now = () => performance.now() }: { schedule?: AfterFrame; budgetMs?: number; now?: () => number } = {},
): Preparer {
  let rows: readonly Row[] = []
  let order: number[] = []
  let next = 0 // the position in order of the next row to look at
  let pending: (() => void)[] = [] // the pieces left of the row being formatted
  let cancel: (() => void) | null = null

  const turn = () => {
    cancel = null
    const t0 = now()
    do {
      if (pending.length === 0) {
        if (next >= order.length) return
        pending = work(rowMarkdown(rows[order[next++]]))
        continue
      }
      pending.shift()!()
    } while (now() - t0 < budgetMs)
    cancel = schedule(turn)
  }

  return {
    update(r, first, last) {
      rows = r
      order = prepareOrder(r.length, first, last)
      next = 0
      pending = []
      if (!cancel && order.length > 0) cancel = schedule(turn)
    },
    stop() {
      cancel?.()
      cancel = null
      order = []
    },
  }
}

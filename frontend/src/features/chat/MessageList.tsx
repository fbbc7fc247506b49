import { useVirtualizer } from '@tanstack/react-virtual'
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react'
import { useStore, useStores } from '../../stores'
import { buildEntryRows, buildLiveRows, type Row, type RowsEnd } from './messageRows'
import { MessageRow, type RowActions } from './rows'
import { findRows, markFound, wrapIndex } from './find'
import { useTranslation } from '../../i18n'

/** Distance from the bottom (px) within which the list follows new content. */
const stickThreshold = 48
/** Distance from the top (px) within which the user waits for older entries
 * ("Loading older messages…"). */
const loadOlderThreshold = 400
/** Older entries are loaded once the view is this many screens from the top,
 * so that they are there before the user reaches them. */
const loadOlderScreens = 6

/** A row as it was drawn: its key and where it started. */
export interface DrawnRow {
  key: string
  start: number
}

/** Where the view goes when rows are put before the first one (older entries
 * arrived): the rows drawn before stay where they were on screen, wherever
 * the user scrolled while the entries loaded. prevFirst: the key of the first
 * row before; drawn: the rows drawn then; start(i): where row i starts now.
 * null when no rows were put first (or none of those drawn is left). */
export function offsetAfterPrepend(
  rows: readonly Row[],
  prevFirst: string | null,
  drawn: readonly DrawnRow[],
  scrollTop: number,
  start: (index: number) => number,
): number | null {
  if (prevFirst === null || rows.length === 0 || rows[0].key === prevFirst) return null
  for (const d of drawn) {
    const i = rows.findIndex((r) => r.key === d.key)
    if (i >= 0) return Math.max(0, scrollTop + start(i) - d.start)
  }
  return null
}

/** A first guess of a row's height before it is measured: the closer it is,
 * the less the list moves when rows above the screen are measured while
 * scrolling up. */
export function estimateRow(row: Row | undefined): number {
  if (!row) return 88
  const lines = (text: string, perLine: number) => text.split('\n').reduce((n, l) => n + Math.max(1, Math.ceil(l.length / perLine)), 0)
  switch (row.kind) {
    case 'user':
      return 48 + 21 * Math.min(lines(row.text, 70), 40)
    case 'assistant':
      return 60 + 21 * Math.min(lines(row.text, 100), 200)
    case 'tool':
    case 'live-tool':
      return 62
    case 'event':
    case 'switcher':
    case 'skill':
      return 34
    case 'compaction':
      return 48
    case 'steps':
      return 52
    default:
      return 88
  }
}

const estimates = new WeakMap<Row, number>()

/** estimateRow, worked out once per row (the list asks again for every row
 * not measured yet whenever its positions change). */
export function estimateRowOnce(row: Row | undefined): number {
  if (!row) return estimateRow(row)
  let h = estimates.get(row)
  if (h === undefined) {
    h = estimateRow(row)
    estimates.set(row, h)
  }
  return h
}

/** The messages of the open conversation, virtualised (only the rows on
 * screen are in the DOM; heights are measured as rows render). It follows
 * new content while the user is at the bottom, pauses when they scroll up
 * (with a "Jump to latest" button), and loads older entries at the top. */
/** What Ctrl/Cmd+F looks for: the words and which hit to show (from 0). */
export interface FindRequest {
  query: string
  at: number
}

export function MessageList({
  onFork,
  onRewind,
  find,
  onFound,
}: {
  onFork: (messageId: string) => void
  onRewind: (messageId: string) => void
  find?: FindRequest
  /** How many rows hold the words looked for. */
  onFound?: (count: number) => void
}) {
  const { chat, settings } = useStores()
  const conversationId = useStore(chat, (s) => s.conversationId)
  const entries = useStore(chat, (s) => s.entries)
  const { t, i18n } = useTranslation()
  const language = i18n.language
  const live = useStore(chat, (s) => s.live)
  const streaming = useStore(chat, (s) => s.streaming)
  const hasMore = useStore(chat, (s) => s.hasMore)
  const loadingOlder = useStore(chat, (s) => s.loadingOlder)
  const settled = useStore(chat, (s) => s.settled)
  const unfinished = useStore(chat, (s) => s.unfinished)
  const stoppedEnd = useStore(chat, (s) => s.stoppedEnd)
  const awaiting = useStore(chat, (s) => s.awaiting)
  const canContinue = useStore(chat, (s) => s.canContinue)
  const speakers = useStore(chat, (s) => s.speakers)
  // The rows of the log change only when entries do; while a reply streams
  // only the rows of the reply in progress are built again.
  const end: RowsEnd = useMemo(
    () => (settled && live.length === 0 ? { unfinished, awaiting, canContinue, stopped: stoppedEnd } : {}),
    [settled, live.length, unfinished, awaiting, canContinue, stoppedEnd],
  )
  // the rows hold words of the language in use (events)
  const entryRows = useMemo(() => buildEntryRows(entries, streaming, end, speakers), [entries, streaming, end, speakers, language])
  const liveRows = useMemo(() => buildLiveRows(entries, live), [entries, live])
  const rows = useMemo(() => (liveRows.length ? [...entryRows, ...liveRows] : entryRows), [entryRows, liveRows])

  const scrollRef = useRef<HTMLDivElement>(null)
  const stick = useRef(true)
  const [atBottom, setAtBottom] = useState(true)
  const [nearTop, setNearTop] = useState(false)

  // The same functions while the rows are the same: the list works out the
  // positions of all its rows again whenever getItemKey changes, and scrolling
  // renders this component at every frame.
  const getItemKey = useCallback((i: number) => rows[i]?.key ?? i, [rows])
  const estimateSize = useCallback((i: number) => estimateRowOnce(rows[i]), [rows])
  const getScrollElement = useCallback(() => scrollRef.current, [])
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement,
    estimateSize,
    overscan: 8,
    getItemKey,
  })

  // Older rows put before the first one drawn: the view moves down by their
  // height, worked out now so that this render draws the rows that stay on
  // screen (not the new ones at the old position), and written to the
  // element once they are in the page.
  const firstKey = useRef<string | null>(null)
  const drawn = useRef<DrawnRow[]>([])
  const moveTo = useRef<number | null>(null)
  const el = scrollRef.current
  // (the element's position is read only when the first row changed)
  const target =
    el && firstKey.current !== null && rows[0]?.key !== firstKey.current
      ? offsetAfterPrepend(rows, firstKey.current, drawn.current, el.scrollTop, (i) => {
          virtualizer.getTotalSize() // brings the positions up to date with the rows
          return virtualizer.measurementsCache[i]?.start ?? 0
        })
      : null
  firstKey.current = rows[0]?.key ?? null
  if (target !== null) {
    moveTo.current = target
    virtualizer.scrollOffset = target
  }
  useLayoutEffect(() => {
    const to = moveTo.current
    moveTo.current = null
    if (to !== null && scrollRef.current) scrollRef.current.scrollTop = to
  })

  const scrollToBottom = useCallback(() => {
    const el = scrollRef.current
    if (el) el.scrollTop = el.scrollHeight
  }, [])

  // A newly opened conversation starts at its end.
  useLayoutEffect(() => {
    stick.current = true
    setAtBottom(true)
  }, [conversationId])

  // Follow new content and growing rows while stuck to the bottom.
  const total = virtualizer.getTotalSize()
  useLayoutEffect(() => {
    if (stick.current) scrollToBottom()
  }, [total, rows, scrollToBottom])

  const loadOlder = useCallback(() => void chat.actions.loadOlder(), [chat])

  const onScroll = useCallback(() => {
    const el = scrollRef.current
    if (!el) return
    const bottom = el.scrollHeight - el.scrollTop - el.clientHeight < stickThreshold
    stick.current = bottom
    setAtBottom(bottom)
    setNearTop(el.scrollTop < loadOlderThreshold)
    if (el.scrollTop < Math.max(loadOlderThreshold, loadOlderScreens * el.clientHeight) && hasMore && !loadingOlder) loadOlder()
  }, [hasMore, loadingOlder, loadOlder])

  // Wheel/touch/keys up mean the user wants to read: stop following at once
  // (a stream could otherwise pull the view down before the scroll event).
  const onUserScrollIntent = useCallback((e: React.WheelEvent | React.KeyboardEvent) => {
    if ('deltaY' in e ? e.deltaY < 0 : e.key === 'PageUp' || e.key === 'ArrowUp' || e.key === 'Home') stick.current = false
  }, [])

  useEffect(() => {
    // Fewer rows than a screen: nothing to scroll, so load older ones now.
    const el = scrollRef.current
    if (el && hasMore && !loadingOlder && el.scrollHeight <= el.clientHeight + loadOlderThreshold) loadOlder()
  }, [hasMore, loadingOlder, loadOlder, rows.length])

  // Search: the rows holding the words, and the one shown now.
  const findQuery = find?.query ?? ''
  const hits = useMemo(() => findRows(rows, findQuery), [rows, findQuery])
  const hit = find ? hits[wrapIndex(find.at, hits.length)] ?? -1 : -1
  useEffect(() => onFound?.(hits.length), [onFound, hits.length])
  useEffect(() => {
    if (hit < 0) return
    stick.current = false
    setAtBottom(false)
    virtualizer.scrollToIndex(hit, { align: 'center' })
  }, [hit, findQuery, virtualizer])
  useEffect(() => {
    if (hit < 0) {
      markFound(null, '')
      return
    }
    // once the list has scrolled and drawn the row
    const id = setTimeout(() => markFound(scrollRef.current?.querySelector(`[data-index="${hit}"]`) ?? null, findQuery), 120)
    return () => clearTimeout(id)
  }, [hit, findQuery, rows])
  useEffect(() => () => markFound(null, ''), [])

  const items = virtualizer.getVirtualItems()
  drawn.current = items.map((it) => ({ key: String(it.key), start: it.start }))

  const actions: RowActions = useMemo(
    () => ({
      fork: onFork,
      rewind: onRewind,
      continueReply: () => void chat.actions.continueReply(),
      retry: () => void chat.actions.retry(),
      regenerate: (id) => void chat.actions.regenerate(id),
      edit: (id, text) => chat.actions.startEdit(id, text),
      switchBranch: (after, index) => void chat.actions.switchBranch(after, index),
      openSettings: () => settings.actions.show(),
      streaming,
    }),
    [chat, settings, onFork, onRewind, streaming],
  )

  const jump = () => {
    stick.current = true
    setAtBottom(true)
    virtualizer.scrollToIndex(rows.length - 1, { align: 'end' })
    requestAnimationFrame(scrollToBottom)
  }

  return (
    <div className="message-list-wrap">
      <div
        ref={scrollRef}
        className="message-list"
        onScroll={onScroll}
        onWheel={onUserScrollIntent}
        onKeyDown={onUserScrollIntent}
        tabIndex={0}
        data-testid="message-list"
        data-rows={rows.length}
        aria-label={t('chat.messages')}
      >
        <div className="message-list-inner" style={{ height: total }}>
          {items.map((item) => (
            <div
              key={item.key}
              data-index={item.index}
              ref={virtualizer.measureElement}
              className="row"
              data-find={item.index === hit ? '' : undefined}
              style={{ transform: `translateY(${item.start}px)` }}
            >
              <MessageRow row={rows[item.index]} actions={actions} />
            </div>
          ))}
        </div>
      </div>
      {hasMore && loadingOlder && nearTop && (
        <div className="list-loader" data-testid="load-older">
          {t('chat.loadingOlder')}
        </div>
      )}
      {!atBottom && rows.length > 0 && (
        // A strip of its own under the list, so that it never covers text.
        <div className="jump-strip">
          <button type="button" className="btn btn-small jump-latest" onClick={jump} data-testid="jump-latest">
            {t('chat.jumpLatest')}
          </button>
        </div>
      )}
    </div>
  )
}

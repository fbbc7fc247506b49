import { useLayoutEffect, useMemo, useRef } from 'react'
import { parseAnsi } from '../../lib/ansi'
import { formatBytes } from '../../lib/format'
import type { LiveOutput } from '../../stores'
import { useTranslation } from '../../i18n'

/** The output of a running command as a terminal shows it: colours from its
 * SGR codes (as classes: the text is never read as HTML), the newest lines
 * in view unless the user scrolled up. */
export function LiveOutputView({ out }: { out: LiveOutput }) {
  const { t } = useTranslation()
  const spans = useMemo(() => parseAnsi(out.text), [out.text])
  const ref = useRef<HTMLPreElement>(null)
  const stick = useRef(true)
  useLayoutEffect(() => {
    const el = ref.current
    if (el && stick.current) el.scrollTop = el.scrollHeight
  }, [spans])
  return (
    <div className="tool-live" data-testid="tool-live">
      {out.dropped > 0 && (
        <div className="tool-live-note" data-testid="tool-live-dropped">
          {t('chat.liveDropped', { size: formatBytes(out.dropped) })}
        </div>
      )}
      <pre
        ref={ref}
        className="tool-live-pre mono"
        data-content=""
        data-testid="tool-live-text"
        onScroll={(e) => {
          const el = e.currentTarget
          stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24
        }}
      >
        {spans.map((s, i) =>
          s.className ? (
            <span key={i} className={s.className}>
              {s.text}
            </span>
          ) : (
            s.text
          ),
        )}
      </pre>
    </div>
  )
}

import { useCallback } from 'react'
import { useStores } from '../../stores'

/** The composer's /compact command: "/compact" compacts the conversation
 * now; "/compact <focus>" tells the summary what to keep in full detail. */
export interface CompactCommand {
  focus: string
}

const command = /^\s*\/compact(?:[ \t\n]+([\s\S]*))?$/i

/** The command a composer text is, or null when it is a message. */
export function parseCompactCommand(text: string): CompactCommand | null {
  const m = command.exec(text)
  if (!m) return null
  return { focus: (m[1] ?? '').replace(/\s+/g, ' ').trim() }
}

/** Whether the text is being typed towards the command ("/", "/comp"): the
 * composer then says what it does. */
export function isCompactPrefix(text: string): boolean {
  const t = text.trimStart().toLowerCase()
  return t.length > 1 && '/compact'.startsWith(t)
}

/** Runs the composer's text as /compact when it is that command: true when
 * it was (the compaction then runs; its progress and outcome are in the
 * context store). */
export function useCompactCommand(): (text: string) => boolean {
  const { context } = useStores()
  return useCallback(
    (text: string) => {
      const cmd = parseCompactCommand(text)
      if (!cmd) return false
      void context.actions.compact(cmd.focus)
      return true
    },
    [context],
  )
}

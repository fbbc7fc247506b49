import { useCallback, useState } from 'react'
import type { AttachmentInput } from '../../bridge'
import { t, useTranslation } from '../../i18n'
import { formatBytes } from '../../lib/format'

/** Limits the backend applies too (backend/attach): checked here so that a
 * file too big is said so before it is read. */
export const maxFiles = 10
export const maxFileBytes = 20 * 1024 * 1024

/** A file attached in the composer, read and ready to send. */
export interface PendingFile extends AttachmentInput {
  size: number
  /** An image's data URL, for its thumbnail. */
  preview?: string
}

function readFile(f: File): Promise<PendingFile> {
  return new Promise((resolve, reject) => {
    const r = new FileReader()
    r.onerror = () => reject(r.error ?? new Error('the file could not be read'))
    r.onload = () => {
      const url = String(r.result)
      const data = url.slice(url.indexOf(',') + 1)
      resolve({ name: f.name || 'pasted', data, size: f.size, preview: f.type.startsWith('image/') ? url : undefined })
    }
    r.readAsDataURL(f)
  })
}

/** A file's size in the language in use: "1.5 MB", "12 KB", "300 bytes". */
export function formatSize(n: number): string {
  return formatBytes(n)
}

/** The files attached to the message being written: add (from the picker,
 * a paste or a drop), remove, and what went wrong in words. */
export function useAttachments() {
  const [files, setFiles] = useState<PendingFile[]>([])
  const [error, setError] = useState<string | null>(null)
  const add = useCallback(async (list: FileList | File[]) => {
    const picked = Array.from(list)
    if (picked.length === 0) return
    setError(null)
    const problems: string[] = []
    const ok: File[] = []
    for (const f of picked) {
      if (f.size > maxFileBytes) problems.push(t('attach.tooBig', { name: f.name, size: formatSize(f.size), max: formatSize(maxFileBytes) }))
      else if (f.size === 0) problems.push(t('attach.empty', { name: f.name }))
      else ok.push(f)
    }
    const read = await Promise.allSettled(ok.map(readFile))
    const added: PendingFile[] = []
    read.forEach((r, i) => (r.status === 'fulfilled' ? added.push(r.value) : problems.push(t('attach.unreadable', { name: ok[i].name }))))
    setFiles((cur) => {
      const room = maxFiles - cur.length
      if (added.length > room) problems.push(t('attach.tooMany', { count: maxFiles }))
      return [...cur, ...added.slice(0, Math.max(0, room))]
    })
    if (problems.length) setError(problems.join(t('attach.sep')))
  }, [])
  const remove = useCallback((i: number) => setFiles((cur) => cur.filter((_, j) => j !== i)), [])
  const clear = useCallback(() => {
    setFiles([])
    setError(null)
  }, [])
  return { files, error, add, remove, clear, setFiles, dismissError: () => setError(null) }
}

/** The attached files as chips above the input: name, size, a thumbnail for
 * images, and a button to take each one off. */
export function AttachmentChips({ files, error, onRemove, onDismiss }: { files: PendingFile[]; error: string | null; onRemove: (i: number) => void; onDismiss: () => void }) {
  const { t } = useTranslation()
  if (files.length === 0 && !error) return null
  return (
    <div className="attachments" data-testid="attachments">
      {files.map((f, i) => (
        <span className="attachment-chip" key={`${f.name}-${i}`} data-testid="attachment-chip" title={`${f.name} (${formatSize(f.size)})`}>
          {f.preview ? <img className="attachment-thumb" src={f.preview} alt="" /> : <span aria-hidden="true" className="attachment-icon">📄</span>}
          <span className="attachment-name">{f.name}</span>
          <span className="attachment-size">{formatSize(f.size)}</span>
          <button type="button" className="attachment-remove" onClick={() => onRemove(i)} aria-label={t('attach.remove', { name: f.name })} data-testid="attachment-remove">
            ✕
          </button>
        </span>
      ))}
      {error && (
        <span className="attachment-error" role="alert" data-testid="attachment-error">
          {error}
          <button type="button" className="attachment-remove" onClick={onDismiss} aria-label={t('common.dismiss')}>
            ✕
          </button>
        </span>
      )}
    </div>
  )
}

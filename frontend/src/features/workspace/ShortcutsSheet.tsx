import { Modal } from '../../components/Modal'
import { useTranslation } from '../../i18n'
import { isMac, shortcutList } from './shortcuts'

/** `?`: every key of the window and what it does. */
export function ShortcutsSheet({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation()
  const mod = isMac() ? '⌘' : t('keys.ctrl')
  const name = (k: string) => (k === 'Mod' ? mod : k === 'Shift' ? t('keys.shift') : k === 'Esc' ? t('keys.esc') : k === 'Enter' ? t('keys.enter') : k)
  return (
    <Modal title={t('keys.title')} onClose={onClose} testId="shortcuts-sheet">
      <table className="shortcuts-table">
        <tbody>
          {shortcutList.map((s) => (
            <tr key={s.what} data-testid="shortcut-row">
              <td className="shortcuts-keys">
                {s.keys.map((k, i) => (
                  <span key={i}>
                    {i > 0 && ' + '}
                    <kbd>{name(k)}</kbd>
                  </span>
                ))}
              </td>
              <td>{t(s.what)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Modal>
  )
}

import * as Packages from '../../wailsjs/go/desktop/Packages'
import type { packages } from '../../wailsjs/go/models'
import { call } from './errors'
import type { ProjectInfo } from './projects'

export type InstalledPackage = packages.Installed
export type PackageProblem = packages.Problem
export type PackagesView = packages.ListView
export type PackageImport = packages.ImportView
export type ActivePackageView = packages.ActiveView
export type WorkflowInfo = packages.WorkflowView

/** Installed .bmad packages: list, import (with the validation report),
 * the native file picker, and the open project's active package. */
export interface PackagesApi {
  list(): Promise<PackagesView>
  /** Imports a .bmad/.zip file or a package folder. An invalid package
   * resolves with ok=false and every problem; one whose id and version are
   * installed already resolves with ok=false and `exists` (nothing changed);
   * unreadable paths reject. */
  importPackage(path: string): Promise<PackageImport>
  /** Imports like importPackage, replacing an installed package of the same
   * id and version (once the user confirmed it). */
  importReplacing(path: string): Promise<PackageImport>
  /** The native open-file dialog for packages; null when cancelled. */
  chooseFile(): Promise<string | null>
  /** Binds the open project to an installed package. */
  setActive(packageId: string): Promise<ProjectInfo>
  /** The open project's package: its workflows and agents. */
  active(): Promise<ActivePackageView>
  /** Uninstalls a package; resolves with the open project afterwards (its
   * active package is cleared when it was the removed one), null without one. */
  remove(packageId: string): Promise<ProjectInfo | null>
  /** Installs the bundled demo package again after it was removed. */
  installDemo(): Promise<InstalledPackage>
}

export function createWailsPackages(): PackagesApi {
  return {
    list: () => call(() => Packages.List()),
    importPackage: (path) => call(() => Packages.Import(path)),
    importReplacing: (path) => call(() => Packages.ImportReplacing(path)),
    chooseFile: () => call(async () => (await Packages.ChooseFile()) || null),
    setActive: (id) => call(() => Packages.SetActive(id)),
    active: () => call(() => Packages.Active()),
    remove: (id) => call(async () => (await Packages.Remove(id)) ?? null),
    installDemo: () => call(() => Packages.InstallDemo()),
  }
}

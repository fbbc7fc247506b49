// Package filelock takes exclusive advisory locks on files, shared by every
// process of the runtime that writes a file others may write too (the recent
// projects list, the installed packages registry).
package filelock

package errs

// Projects and the application layer.
var _ = messages(map[string]string{
	"app.noProject":           "no project is open; open or create a project first",
	"app.busyRemovingPackage": "a reply is being generated in this project; stop it or let it finish before removing a package",
	"project.noFolder":        "no project folder given",
	"project.notFound":        "folder {{path}} does not exist",
	"project.notDir":          "{{path}} is not a folder",
	"project.exists":          "{{path}} already exists; choose another name or open it as a project",
	"project.moved":           "this looks like project \"{{name}}\" moved from {{from}} — use its conversations?",
})

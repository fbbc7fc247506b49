//go:build linux && cgo

package desktop

/*
#cgo pkg-config: gtk+-3.0
#include <gtk/gtk.h>

// A file chooser opens at a size GTK derives from the font (45 lines of
// text) or at the size the user left it last time, whatever the screen:
// on a 1280x800 screen its Save and Cancel buttons fall below the edge.
// Once it is shown it is brought within 85 % of its monitor's work area
// and centred there; a smaller dialog is left as it is.
static gboolean crewFitDialog(gpointer data) {
	GtkWindow *win = GTK_WINDOW(data);
	GtkWidget *w = GTK_WIDGET(win);
	GdkWindow *gw = gtk_widget_get_window(w);
	if (gtk_widget_get_mapped(w) && gw != NULL) {
		GdkMonitor *mon = gdk_display_get_monitor_at_window(gtk_widget_get_display(w), gw);
		if (mon != NULL) {
			GdkRectangle area;
			gdk_monitor_get_workarea(mon, &area);
			int width, height;
			gtk_window_get_size(win, &width, &height);
			int maxW = area.width * 85 / 100, maxH = area.height * 85 / 100;
			if (width > maxW || height > maxH) {
				int nw = MIN(width, maxW), nh = MIN(height, maxH);
				gtk_window_resize(win, nw, nh);
				gtk_window_move(win, area.x + (area.width - nw) / 2, area.y + (area.height - nh) / 2);
			}
		}
	}
	g_object_unref(win);
	return G_SOURCE_REMOVE;
}

static gboolean crewOnMap(GSignalInvocationHint *hint, guint n, const GValue *params, gpointer data) {
	GObject *o = g_value_get_object(&params[0]);
	if (o != NULL && GTK_IS_FILE_CHOOSER_DIALOG(o)) {
		// after the dialog's own handlers have set its default size
		g_idle_add(crewFitDialog, g_object_ref(o));
	}
	return TRUE; // stay installed
}

static gboolean crewInstallDialogFit(gpointer data) {
	gpointer cls = g_type_class_ref(GTK_TYPE_WIDGET);
	g_signal_add_emission_hook(g_signal_lookup("map", GTK_TYPE_WIDGET), 0, crewOnMap, NULL, NULL);
	g_type_class_unref(cls);
	return G_SOURCE_REMOVE;
}

static void crewFitFileDialogs(void) {
	// on the main loop's thread, where GTK runs
	g_idle_add(crewInstallDialogFit, NULL);
}
*/
import "C"

// fitFileDialogs makes the native file dialogs fit the screen they open on
// (see crewFitDialog). Called once the window has started.
func fitFileDialogs() { C.crewFitFileDialogs() }

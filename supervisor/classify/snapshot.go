package classify

import (
	"github.com/sup-tmux/sup/supervisor/screen"
)

// SnapshotOf copies a Screen into a Snapshot, as Model.Snapshot does, for
// callers that drive a Screen directly (`sup classify`, tests).
func SnapshotOf(s *screen.Screen) screen.Snapshot {
	cols, rows := s.Size()
	x, y, on := s.Cursor()
	return screen.Snapshot{
		Cols: cols, Rows: rows,
		Text: s.Text(), Lines: s.Lines(), ANSI: s.ANSI(),
		CursorCol: x, CursorRow: y, CursorOn: on,
		AltScreen: s.AltScreen(), InFrame: s.Synchronized(),
		Signals: s.Signals(), Offset: s.Offset(),
	}
}

// Render writes a raw byte stream into a fresh cols x rows screen and
// returns its snapshot.
func Render(data []byte, cols, rows int) screen.Snapshot {
	s := screen.New(cols, rows)
	s.Write(data)
	return SnapshotOf(s)
}

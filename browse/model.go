package browse

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/mfdlq/mfdlq/contain"
	"github.com/mfdlq/mfdlq/logsearch"
)

// screen is one level of the view, outermost first.
type screen int

const (
	screenFleet screen = iota
	screenDLQ
	screenGroup
	screenMessage
)

// RefreshEvery is how often the fleet is read again while it is shown.
const RefreshEvery = 30 * time.Second

// Options shape the view.
type Options struct {
	// Queue opens the view on this DLQ instead of the fleet.
	Queue string
	// ASCII draws no box or block characters (--ascii).
	ASCII bool
	// Color allows colour (off with NO_COLOR, --no-color or a pipe).
	Color bool
	// Now is the clock of countdowns; fixed in tests.
	Now func() time.Time
	// NoTick turns off the 30 s refresh timer (tests).
	NoTick bool
}

// Model is the view's state. It is a bubbletea model: Update never blocks;
// every read runs in a tea.Cmd and comes back as a message.
type Model struct {
	be     Backend
	opts   Options
	st     styles
	ctx    context.Context
	width  int
	height int
	stack  []screen

	fleet fleetState
	dlq   dlqState
	group groupState
	msg   msgState

	filter    string
	filtering bool
	help      bool
	redact    bool
	modal     *modal
	action    *action
	running   *action // the last action started, until the process ends
	status    string
	// redriveFlags are the flags typed for the last redrive, offered again.
	redriveFlags string
}

type fleetState struct {
	read[Fleet] // a failed read again keeps the fleet it had
	cursor      int
	seq         int
}

type dlqState struct {
	queue   string
	contain read[contain.Result]
	cls     read[Classified]
	cursor  int
}

type groupState struct {
	id    string
	fresh bool // a new peek is running (r), not a read of the sample
	read[GroupMessages]
	cursor int
}

type msgState struct {
	index    int
	logs     read[logsearch.Result]
	showLogs bool
	scroll   int
	// body caches the payload's lines for the key they were drawn for: a
	// 1 MiB body is pretty-printed, redacted and sanitised once, not on
	// every frame.
	body    []string
	bodyKey [3]int
	// kind and envErr are the envelope's kind and error text, read with
	// the body (detecting a 1 MiB envelope is not for every frame).
	kind, envErr string
}

// New returns the view over be.
func New(ctx context.Context, be Backend, opts Options) *Model {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	m := &Model{be: be, opts: opts, st: newStyles(opts), ctx: ctx, width: 80, height: 24, stack: []screen{screenFleet},
		redriveFlags: "--rate 10"}
	if opts.Queue != "" {
		m.stack = append(m.stack, screenDLQ)
		m.dlq.queue = opts.Queue
	}
	return m
}

// Init starts the first reads.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.loadFleet()}
	if m.top() == screenDLQ {
		cmds = append(cmds, m.loadDLQ()...)
	}
	if !m.opts.NoTick {
		cmds = append(cmds, tick())
	}
	return tea.Batch(cmds...)
}

func (m *Model) top() screen { return m.stack[len(m.stack)-1] }

func (m *Model) push(s screen) {
	m.stack = append(m.stack, s)
	m.moved()
}

func (m *Model) pop() {
	if len(m.stack) > 1 {
		m.stack = m.stack[:len(m.stack)-1]
	}
	m.moved()
}

// moved clears what belonged to the screen left: its filter, and the last
// action's outcome (a running action keeps its status line).
func (m *Model) moved() {
	m.filter, m.filtering = "", false
	if m.action == nil {
		m.status = ""
	}
}

// Update handles one message; it returns at once.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = max(msg.Width, 20), max(msg.Height, 8)
		return m, m.prepareBody()
	case tea.KeyMsg:
		return m, m.key(msg)
	case tickMsg:
		var cmd tea.Cmd
		if m.top() == screenFleet && !m.fleet.busy {
			cmd = m.loadFleet()
		}
		return m, tea.Batch(cmd, tick())
	}
	return m, m.loaded(msg)
}

type tickMsg struct{}

func tick() tea.Cmd {
	return tea.Tick(RefreshEvery, func(time.Time) tea.Msg { return tickMsg{} })
}

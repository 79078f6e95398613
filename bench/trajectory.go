package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/cloudwego/eino/schema"
)

// Shape names a kind of synthetic agent trajectory.
type Shape string

// The trajectory shapes the simulation replays.
const (
	// ShapeManySmall is one long task: a few user messages and, at every
	// step, one to three tool results of a few hundred bytes to 2 KB.
	ShapeManySmall Shape = "many-small-results"
	// ShapeFewHuge is like ShapeManySmall with small results, except that
	// every 20th step or so one result is 15-25 % of the window.
	ShapeFewHuge Shape = "few-huge-results"
	// ShapeManyTurns is a chat: a new user message every two to four steps,
	// few tool calls, longer answers.
	ShapeManyTurns Shape = "many-user-turns"
)

// Shapes lists every shape, in report order.
var Shapes = []Shape{ShapeManySmall, ShapeFewHuge, ShapeManyTurns}

// Step is one model call of a scripted trajectory.
type Step struct {
	// Before is what arrives before the call: the results of the previous
	// reply's tool calls, then possibly a new user message.
	Before []*schema.Message
	// Reply is what the model answers, without usage (the simulation adds
	// the usage each strategy's prompt would have had).
	Reply *schema.Message
	// Pause is the time between the previous reply and this call: the
	// tools' run time, plus the user's think time when a user message
	// arrives (see pauseOf); 0 at the first step. SimConfig.Pauses puts it
	// on the simulated clock.
	Pause time.Duration
}

// Trajectory scripts steps model calls of shape for an agent whose window is
// window tokens. The script does not depend on what a strategy does to the
// conversation, so every strategy replays exactly the same work. Equal
// arguments give equal scripts. The first message is the system prompt.
func Trajectory(shape Shape, steps, window int, seed uint64) (*schema.Message, []Step) {
	r := rand.New(rand.NewPCG(seed, uint64(len(shape))))
	// The pauses draw from a generator of their own, so the messages are
	// those of the scripts before pauses were modelled.
	pauses := rand.New(rand.NewPCG(seed, pauseStream+uint64(len(shape))))
	system := schema.SystemMessage("You are a coding agent. Use the tools to inspect the repository, run the tests and fix what fails. " + prose(r, 400))
	script := make([]Step, steps)
	var pending []schema.ToolCall
	call := 0
	for i := range script {
		var before []*schema.Message
		for _, c := range pending {
			before = append(before, schema.ToolMessage(toolOutput(r, trajectoryResultBytes(r, shape, window)), c.ID, schema.WithToolName(c.Function.Name)))
		}
		if i == 0 || userTurn(r, shape, i, len(pending) == 0) {
			before = append(before, schema.UserMessage(prose(r, 80+r.IntN(500))))
		}
		calls := trajectoryCalls(r, shape)
		pending = make([]schema.ToolCall, calls)
		for j := range pending {
			call++
			pending[j] = toolCall(r, fmt.Sprintf("call_%06d", call), toolNames[r.IntN(len(toolNames))])
		}
		text := ""
		if calls == 0 {
			text = prose(r, answerBytes(r, shape))
		} else if r.IntN(3) == 0 {
			text = prose(r, 40+r.IntN(200))
		}
		script[i] = Step{Before: before, Reply: schema.AssistantMessage(text, pending)}
		if i > 0 && len(before) > 0 {
			script[i].Pause = pauseOf(pauses, before[0].Role == schema.Tool, before[len(before)-1].Role == schema.User)
		}
		if calls == 0 {
			pending = nil
		}
	}
	return system, script
}

// userTurn reports whether a user message arrives before step i. answered
// says the previous reply called no tool: then the user speaks next.
func userTurn(r *rand.Rand, shape Shape, i int, answered bool) bool {
	if answered {
		return true
	}
	if shape == ShapeManyTurns {
		return false
	}
	return i%60 == 0
}

// trajectoryCalls is how many tools the reply calls; 0 is a final answer.
func trajectoryCalls(r *rand.Rand, shape Shape) int {
	if shape == ShapeManyTurns {
		if r.IntN(3) == 0 {
			return 0
		}
		return 1 + r.IntN(2)
	}
	if r.IntN(40) == 0 {
		return 0
	}
	return 1 + r.IntN(3)
}

func answerBytes(r *rand.Rand, shape Shape) int {
	if shape == ShapeManyTurns {
		return 500 + r.IntN(1500)
	}
	return 200 + r.IntN(600)
}

// trajectoryResultBytes sizes one tool result: a few hundred bytes to 2 KB,
// and for ShapeFewHuge one result in about 40 at 15-25 % of the window
// (four bytes a token).
func trajectoryResultBytes(r *rand.Rand, shape Shape, window int) int {
	if shape == ShapeFewHuge && r.IntN(40) == 0 {
		return window * 4 * (15 + r.IntN(11)) / 100
	}
	if shape == ShapeFewHuge {
		return 200 + r.IntN(600)
	}
	return 300 + r.IntN(1700)
}

// pauseStream separates the pauses' random stream from the messages'.
const pauseStream = 0x7061757365

// The pause model (SimConfig.Pauses). Tool calls take 0.5 to 5 seconds
// (uniform), except one step in 25 whose tools run 2 to 12 minutes (a test
// suite, a build, a deployment); a user message comes after a think time
// drawn log-uniformly from 20 seconds to 20 minutes (median about 2.5
// minutes: a quick reply as often as a coffee break). A step with both
// waits for both. Round figures for an agent at work; what matters for the
// cache is how often a pause outlives its lifetime (5 minutes): here about
// one tool step in 40 (a 2-12 minute run exceeds it 70 % of the time) and
// one user turn in 3.
const (
	toolPauseMin, toolPauseMax = 500 * time.Millisecond, 5 * time.Second
	longToolOneIn              = 25
	longToolMin, longToolMax   = 2 * time.Minute, 12 * time.Minute
	thinkMin, thinkMax         = 20 * time.Second, 20 * time.Minute
)

// pauseOf draws the pause before a step whose input holds tool results
// (tools) and a user message (user).
func pauseOf(r *rand.Rand, tools, user bool) time.Duration {
	var d time.Duration
	if tools {
		if r.IntN(longToolOneIn) == 0 {
			d += longToolMin + time.Duration(r.Int64N(int64(longToolMax-longToolMin)))
		} else {
			d += toolPauseMin + time.Duration(r.Int64N(int64(toolPauseMax-toolPauseMin)))
		}
	}
	if user {
		lo, hi := math.Log(float64(thinkMin)), math.Log(float64(thinkMax))
		d += time.Duration(math.Exp(lo + r.Float64()*(hi-lo)))
	}
	return d
}

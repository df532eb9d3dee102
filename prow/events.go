package prow

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Event is one item of an e2e events, intervals or timelines file
// (e2e-events_*.json, e2e-intervals*.json, e2e-timelines_*.json,
// AdditionalEvents*.json), in the same shape whatever generation of
// openshift-tests wrote it.
type Event struct {
	// From and To bound the interval in UTC; they are equal for an instant
	// and zero when the file's time does not parse.
	From, To time.Time
	// Level is "Info", "Warning" or "Error".
	Level string
	// Source is the monitor that recorded the event ("KubeEvent",
	// "Disruption", ...); empty in the oldest files.
	Source string
	// Locator is the legacy string form, "ns/X node/Y pod/Z ...". A
	// structured locator is rendered as origin's OldLocator does: keys in
	// the order namespace (as "ns"), node, pod, uid, server, container,
	// shutdown, row, then the others alphabetically.
	Locator string
	// Message is the human message of a structured message, or the
	// message string of the older generations.
	Message string
	// Reason is the structured message's reason (or its "reason"
	// annotation), or the value of a "reason/X" token of the message
	// string.
	Reason string
	// Namespace and Node come from the locator's keys or its "ns/" and
	// "node/" tokens.
	Namespace, Node string
}

// ErrNoItems reports an events document that is an object without an
// "items" array.
var ErrNoItems = errors.New("no items array")

// ParseEvents reads an events document from r and calls fn for each item in
// file order. The document is {"items":[...]} or a bare array, and the items
// may be of any of the three generations: legacy (locator and message are
// strings), transitional (strings plus tempStructuredLocator and
// tempStructuredMessage) and current (locator {type, keys}, message {reason,
// cause, humanMessage, annotations}).
//
// The items are decoded one at a time, so memory grows with the largest item
// and not with the file. A malformed item stops the parse with an error that
// names its index (from 0); the events before it have been given to fn. An
// error from fn stops the parse and is returned as it is.
func ParseEvents(r io.Reader, fn func(Event) error) error {
	dec := json.NewDecoder(r)
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("parse events: %w", err)
	}
	switch tok {
	case json.Delim('['):
		if err := decodeEventItems(dec, fn); err != nil {
			return err
		}
	case json.Delim('{'):
		found := false
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return fmt.Errorf("parse events: %w", err)
			}
			if k, _ := key.(string); found || !strings.EqualFold(k, "items") {
				if err := skipJSONValue(dec); err != nil {
					return fmt.Errorf("parse events: %s: %w", k, err)
				}
				continue
			}
			found = true
			switch t, err := dec.Token(); {
			case err != nil:
				return fmt.Errorf("parse events: items: %w", err)
			case t == nil:
				// "items": null holds no events.
			case t != json.Delim('['):
				return fmt.Errorf("parse events: items is not an array")
			default:
				if err := decodeEventItems(dec, fn); err != nil {
					return err
				}
			}
		}
		if _, err := dec.Token(); err != nil {
			return fmt.Errorf("parse events: %w", err)
		}
		if !found {
			return fmt.Errorf("parse events: %w", ErrNoItems)
		}
	default:
		return fmt.Errorf("parse events: %w", errNotEventsDocument)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("parse events: data after the document")
	}
	return nil
}

var errNotEventsDocument = errors.New("neither an object nor an array")

// decodeEventItems decodes the items of an open array and its closing ']'.
func decodeEventItems(dec *json.Decoder, fn func(Event) error) error {
	for i := 0; dec.More(); i++ {
		var item eventJSON
		if err := dec.Decode(&item); err != nil {
			return fmt.Errorf("parse events: item %d: %w", i, err)
		}
		ev, err := item.event()
		if err != nil {
			return fmt.Errorf("parse events: item %d: %w", i, err)
		}
		if err := fn(ev); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("parse events: %w", err)
	}
	return nil
}

// skipJSONValue consumes one value of any kind without keeping it.
func skipJSONValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// jsonValues keeps every value a key is given in one object, in order.
// Files converted from the legacy generation to the current one carry
// "locator" and "message" twice, the legacy string and then the structured
// object (origin's own interval fixtures do): encoding/json, which origin
// reads them with, keeps the last, the structured form, and the string it
// replaced is the same interval rendered the old way.
type jsonValues []json.RawMessage

// UnmarshalJSON appends: the decoder calls it once per occurrence of the key.
func (v *jsonValues) UnmarshalJSON(b []byte) error {
	*v = append(*v, append(json.RawMessage(nil), b...))
	return nil
}

// eventJSON holds the fields of all three generations. Locator and message
// are strings in the older two and objects in the current one.
type eventJSON struct {
	Level                 jsonString         `json:"level"`
	Source                jsonString         `json:"source"`
	TempSource            jsonString         `json:"tempSource"`
	Locator               jsonValues         `json:"locator"`
	Message               jsonValues         `json:"message"`
	TempStructuredLocator *structuredLocator `json:"tempStructuredLocator"`
	TempStructuredMessage *structuredMessage `json:"tempStructuredMessage"`
	From                  jsonString         `json:"from"`
	To                    jsonString         `json:"to"`
}

type structuredLocator struct {
	Type jsonString            `json:"type"`
	Keys map[string]jsonString `json:"keys"`
}

type structuredMessage struct {
	Reason       jsonString            `json:"reason"`
	Cause        jsonString            `json:"cause"`
	HumanMessage jsonString            `json:"humanMessage"`
	Annotations  map[string]jsonString `json:"annotations"`
}

func (it *eventJSON) event() (Event, error) {
	ev := Event{
		From:   parseTime(it.From),
		To:     parseTime(it.To),
		Level:  string(it.Level),
		Source: string(cmp.Or(it.Source, it.TempSource)),
	}
	// A structured value wins over a legacy string, as the last of
	// duplicate keys does in the files that have both; the string still
	// names what the structured form leaves out.
	loc := it.TempStructuredLocator
	var legacyLocator string
	for _, raw := range it.Locator {
		switch jsonKind(raw) {
		case '"':
			if err := json.Unmarshal(raw, &legacyLocator); err != nil {
				return Event{}, fmt.Errorf("locator: %w", err)
			}
			if loc == nil || loc == it.TempStructuredLocator {
				ev.Locator = legacyLocator
			}
		case '{':
			loc = new(structuredLocator)
			if err := json.Unmarshal(raw, loc); err != nil {
				return Event{}, fmt.Errorf("locator: %w", err)
			}
			ev.Locator = loc.render()
		case 0, 'n':
		default:
			return Event{}, errors.New("locator is neither a string nor an object")
		}
	}
	msg := it.TempStructuredMessage
	var legacyMessage string
	for _, raw := range it.Message {
		switch jsonKind(raw) {
		case '"':
			if err := json.Unmarshal(raw, &legacyMessage); err != nil {
				return Event{}, fmt.Errorf("message: %w", err)
			}
			if msg == nil || msg == it.TempStructuredMessage {
				ev.Message = legacyMessage
			}
		case '{':
			msg = new(structuredMessage)
			if err := json.Unmarshal(raw, msg); err != nil {
				return Event{}, fmt.Errorf("message: %w", err)
			}
			ev.Message = string(msg.HumanMessage)
		case 0, 'n':
		default:
			return Event{}, errors.New("message is neither a string nor an object")
		}
	}
	if msg != nil {
		ev.Reason = string(cmp.Or(msg.Reason, msg.Annotations["reason"]))
	}
	if ev.Reason == "" {
		ev.Reason = cmp.Or(tokenValue(ev.Message, "reason/"), tokenValue(legacyMessage, "reason/"))
	}
	if loc != nil {
		ev.Namespace, ev.Node = string(loc.Keys["namespace"]), string(loc.Keys["node"])
	}
	if ev.Namespace == "" && ev.Node == "" {
		ev.Namespace, ev.Node = locatorTokens(ev.Locator)
	}
	if legacyLocator != "" && legacyLocator != ev.Locator && (ev.Namespace == "" || ev.Node == "") {
		// What the structured form lacks, its legacy twin may say.
		ns, node := locatorTokens(legacyLocator)
		ev.Namespace, ev.Node = cmp.Or(ev.Namespace, ns), cmp.Or(ev.Node, node)
	}
	return ev, nil
}

// locatorKeyOrder is the order of origin's OldLocator; other keys follow
// alphabetically.
var locatorKeyOrder = []string{"namespace", "node", "pod", "uid", "server", "container", "shutdown", "row"}

// render returns the legacy string form of a structured locator.
func (l *structuredLocator) render() string {
	keys := make([]string, 0, len(l.Keys))
	for k := range l.Keys {
		if !slices.Contains(locatorKeyOrder, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var b strings.Builder
	add := func(k string) {
		v, ok := l.Keys[k]
		if !ok {
			return
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		switch k {
		case "namespace":
			b.WriteString("ns")
		default:
			b.WriteString(k)
		}
		b.WriteByte('/')
		if k == "e2e-test" {
			b.WriteString(strconv.Quote(string(v)))
		} else {
			b.WriteString(string(v))
		}
	}
	for _, k := range locatorKeyOrder {
		add(k)
	}
	for _, k := range keys {
		add(k)
	}
	return b.String()
}

// jsonKind returns the first byte of a raw JSON value: '"', '{', '[', 'n'
// (null), and so on; 0 when it is absent.
func jsonKind(raw json.RawMessage) byte {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

// tokenValue returns the value of the first space-separated token of s that
// starts with prefix.
func tokenValue(s, prefix string) string {
	for tok := range strings.FieldsSeq(s) {
		if v, ok := strings.CutPrefix(tok, prefix); ok && v != "" {
			return v
		}
	}
	return ""
}

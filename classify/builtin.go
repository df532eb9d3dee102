package classify

import (
	_ "embed"
	"fmt"
)

//go:embed builtin.yaml
var builtinYAML []byte

// Builtin returns the built-in rules, from the embedded builtin.yaml, with
// Source "builtin". It panics only if that file is invalid, which a test
// rules out.
func Builtin() []Rule {
	rules, err := ParseRules("builtin.yaml", builtinYAML)
	if err != nil {
		panic(fmt.Sprintf("classify: the built-in rules are invalid: %v", err))
	}
	for i := range rules {
		rules[i].Source = BuiltinSource
	}
	return rules
}

// BuiltinYAML returns the embedded builtin.yaml, the model for a user's
// rules file.
func BuiltinYAML() []byte {
	return append([]byte(nil), builtinYAML...)
}

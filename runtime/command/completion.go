package command

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Shell completion: Completion writes a bash, zsh or fish script from the
// command declarations, so that the shell completes command names ("group
// sub"), their flags, the choices of a flag and the paths a flag takes.
//
// The three scripts share one reading of the command line, the one the
// client itself makes: leading --debug words are skipped; the program's own
// words (help, run, completion, -c, ...) come first; a word that is also a
// command ("run") is that command when the word after it is a flag; else the
// longest run of up to four leading words that names a command (spaces or
// hyphens) is the command, and the words after it are its flags and
// arguments.

// ValueKind says what a flag's value or an argument completes to.
type ValueKind int

// The kinds of completed values.
const (
	// NoValue is free text: nothing is completed.
	NoValue ValueKind = iota
	// ChoiceValue completes to Value.Choices.
	ChoiceValue
	// FileValue completes to file names (with Value.Ext, only those files
	// and directories).
	FileValue
	// DirValue completes to directory names.
	DirValue
	// CommandValue completes to command and group names, word by word, as
	// "help" takes them.
	CommandValue
)

// Value is what a flag's value or an argument completes to.
type Value struct {
	Kind ValueKind
	// Choices are the accepted values of a ChoiceValue.
	Choices []string
	// Ext, for a FileValue, keeps only the files whose name ends in it
	// (".star"), and the directories.
	Ext string
}

// Word is a word of the program itself that is not a declared command:
// "help", "version", "run" (FILE.star), or a top-level option ("--check").
type Word struct {
	// Name is the word as typed; names starting with "-" are options.
	Name string
	// Help is its one-line description.
	Help string
	// First is what the first argument after the word completes to, Rest
	// what the arguments after that complete to.
	First, Rest Value
	// Options are the flags the word takes ("--markdown"), offered when the
	// word being completed starts with "-".
	Options []string
}

// CompletionSpec is what a completion script completes.
type CompletionSpec struct {
	// Prog is the program's name, as the shell calls it.
	Prog string
	// Commands are the declared commands.
	Commands []*Command
	// Words are the program's own words and top-level options.
	Words []Word
}

// CompletionShells lists the shells Completion writes scripts for.
var CompletionShells = []string{"bash", "zsh", "fish"}

// Completion returns the completion script of spec for shell: "bash",
// "zsh" or "fish".
func Completion(shell string, spec CompletionSpec) (string, error) {
	m := newModel(spec)
	switch shell {
	case "bash":
		return m.bash(), nil
	case "zsh":
		return m.zsh(), nil
	case "fish":
		return m.fish(), nil
	}
	return "", fmt.Errorf("unknown shell %q (want %s)", shell, strings.Join(CompletionShells, ", "))
}

// Completes returns what the flag's value completes to, from its
// declaration: its choices; else a file or a directory when its metavar
// names one (FILE, DIR, CSV, PARQUET, FILE_OR_URL, ...) or its name does
// (file, tofile, outfile, path, dir, todir, output_dir, from, to, out);
// else nothing. "folder" is no hint: in this shell it mostly names an
// object-store folder, so a local one says metavar = "DIR".
func (f *Flag) Completes() Value {
	switch {
	case len(f.Choices) > 0:
		return Value{Kind: ChoiceValue, Choices: f.Choices}
	case f.Kind != String:
		return Value{}
	}
	if k := metavarHint(f.Metavar); k != NoValue {
		return Value{Kind: k}
	}
	return Value{Kind: nameHint(f.Key())}
}

// fileWords are metavar words that name a file: the word FILE or PATH, or
// a file format.
var fileWords = map[string]bool{
	"FILE": true, "FILES": true, "PATH": true, "PATHS": true, "CSV": true, "TSV": true,
	"JSON": true, "JSONL": true, "NDJSON": true, "YAML": true, "YML": true, "XLSX": true, "XLS": true,
	"PARQUET": true, "ZIP": true, "TAR": true, "GZ": true, "STAR": true, "TXT": true,
}

// metavarHint reads a metavar such as FILE_OR_URL or OUTPUT_DIR.
func metavarHint(metavar string) ValueKind {
	words := strings.FieldsFunc(strings.ToUpper(metavar), func(r rune) bool {
		return !('A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	})
	kind := NoValue
	for _, w := range words {
		switch {
		case fileWords[w]:
			return FileValue
		case w == "DIR" || w == "DIRS" || w == "DIRECTORY":
			kind = DirValue
		}
	}
	return kind
}

// nameHint reads a flag's canonical name: its last hyphenated word is
// file, path or dir, possibly after to, out, in, from, ... (tofile,
// output-dir); or the whole name is from, to or out.
func nameHint(key string) ValueKind {
	switch key {
	case "from", "to", "out":
		return FileValue
	}
	last := key[strings.LastIndex(key, "-")+1:]
	for _, p := range []string{"", "to", "out", "output", "in", "input", "from", "src", "dst", "dest", "log", "work", "save"} {
		switch strings.TrimPrefix(last, p) {
		case "file", "files", "path", "paths":
			return FileValue
		case "dir", "dirs", "directory":
			return DirValue
		}
	}
	return NoValue
}

// takesValue reports whether the flag is followed by a value (not a bool,
// not a positional).
func (f *Flag) takesValue() bool { return !f.Positional && f.Kind != Bool }

// model is the spec arranged for the script writers.
type model struct {
	CompletionSpec
	fn    string              // the shell function prefix: "_client"
	keys  []string            // the commands' canonical keys, sorted
	cmds  map[string]*Command // by key
	next  map[string][]choice // canonical prefix ("" at the top) -> next words
	roots []string            // prefixes of next, sorted
}

// choice is a completion candidate with its description.
type choice struct{ word, help string }

func newModel(spec CompletionSpec) *model {
	m := &model{CompletionSpec: spec, cmds: map[string]*Command{}, next: map[string][]choice{}}
	m.fn = "_" + identifier(spec.Prog)
	for _, c := range spec.Commands {
		m.cmds[c.Key()] = c
	}
	for k := range m.cmds {
		m.keys = append(m.keys, k)
	}
	sort.Strings(m.keys)
	subs := map[string][]string{} // key of a group -> its next words
	for _, k := range m.keys {
		words := strings.Fields(m.cmds[k].Name)
		for i, w := range words {
			p := Canonical(strings.Join(words[:i], " "))
			if !containsChoice(m.next[p], w) {
				m.next[p] = append(m.next[p], choice{word: w})
			}
			if i+1 < len(words) {
				g := Canonical(strings.Join(words[:i+1], " "))
				if !contains(subs[g], words[i+1]) {
					subs[g] = append(subs[g], words[i+1])
				}
			}
		}
	}
	for p, cs := range m.next {
		for i := range cs {
			k := cs[i].word
			if p != "" {
				k = p + "-" + k
			}
			if c := m.cmds[k]; c != nil {
				cs[i].help = c.Summary()
			} else {
				cs[i].help = "commands: " + strings.Join(subs[k], ", ")
			}
			cs[i].help = oneLine(cs[i].help, 80)
		}
		sort.Slice(cs, func(i, j int) bool { return cs[i].word < cs[j].word })
		m.roots = append(m.roots, p)
	}
	sort.Strings(m.roots)
	return m
}

func containsChoice(cs []choice, w string) bool {
	for _, c := range cs {
		if c.word == w {
			return true
		}
	}
	return false
}

// ownWords returns the program's words that are not options, and options
// those that are.
func (m *model) ownWords() (words, options []Word) {
	for _, w := range m.Words {
		if strings.HasPrefix(w.Name, "-") {
			options = append(options, w)
		} else {
			words = append(words, w)
		}
	}
	return words, options
}

// flagsOf returns the flags of c that are given by name.
func flagsOf(c *Command) []*Flag {
	var out []*Flag
	for _, f := range c.Flags {
		if !f.Positional {
			out = append(out, f)
		}
	}
	return out
}

// positionals returns the positional arguments of c.
func positionals(c *Command) []*Flag {
	var out []*Flag
	for _, f := range c.Flags {
		if f.Positional {
			out = append(out, f)
		}
	}
	return out
}

// flagHelp is the one-line description of a flag in a completion menu.
func flagHelp(f *Flag) string {
	h := f.Help
	if f.DeprecatedFor != "" {
		h = strings.TrimSpace("Deprecated: use " + replacement(f, "") + ". " + h)
	}
	return oneLine(h, 80)
}

// oneLine returns the first line of s, cut to n bytes at a word.
func oneLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) <= n {
		return s
	}
	cut := strings.LastIndex(s[:n-3], " ")
	if cut <= 0 {
		for cut = n - 3; cut > 0 && !utf8.RuneStart(s[cut]); cut-- {
		}
	}
	return strings.TrimRight(s[:cut], " ,;:") + "..."
}

// identifier turns prog into a shell identifier.
func identifier(prog string) string {
	var b strings.Builder
	for _, r := range prog {
		if r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// shQuote quotes s for bash and zsh in single quotes; a quote inside is
// closed, escaped with a backslash and reopened.
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shQuoteAll quotes each of words and joins them with spaces.
func shQuoteAll(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = shQuote(w)
	}
	return strings.Join(q, " ")
}

// Renders a Modelfile's TEMPLATE the way Ollama does, for test_ollama_modelfile.py: the value
// between the triple quotes taken as is (Ollama's parser does no unescaping), parsed by Go's
// text/template with missingkey=zero, executed over .Messages (Role, Content) for each
// conversation. Reads {"modelfile": "...", "conversations": [[{"role", "content"}, ...], ...]}
// as JSON on stdin; writes the rendered texts as a JSON list.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"text/template"
)

type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type input struct {
	Modelfile     string      `json:"modelfile"`
	Conversations [][]Message `json:"conversations"`
}

func templateOf(modelfile string) (string, error) {
	start := strings.Index(modelfile, "TEMPLATE \"\"\"")
	if start < 0 {
		return "", fmt.Errorf("no TEMPLATE \"\"\"…\"\"\" in the Modelfile")
	}
	rest := modelfile[start+len("TEMPLATE \"\"\""):]
	end := strings.Index(rest, "\"\"\"")
	if end < 0 {
		return "", fmt.Errorf("the TEMPLATE value is not closed")
	}
	return rest[:end], nil
}

func main() {
	var in input
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	text, err := templateOf(in.Modelfile)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	tmpl, err := template.New("").Option("missingkey=zero").Parse(text)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	out := []string{}
	for _, messages := range in.Conversations {
		var b strings.Builder
		if err := tmpl.Execute(&b, map[string]any{"Messages": messages}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		out = append(out, b.String())
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}

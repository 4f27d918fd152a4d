// Command k8s-validate decodes Kubernetes manifests offline against the real API types
// (k8s.io/api) with a strict decoder: an unknown or misspelled field, a duplicate field, a wrong
// type or a malformed quantity fails, as the API server's strict field validation would.
//
//	k8s-validate [-json] FILE...   (FILE "-" reads standard input)
//	k8s-validate -yaml2json < FILE (any YAML document as JSON, for tests of other YAML files)
//
// Every YAML document of every file must be an object of a registered group (core, apps,
// autoscaling/v2, networking, policy) or a kustomization.yaml. With -json it prints the decoded
// objects (as the API would return them) for further checks by the caller.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// kustomization is the subset of kustomize's Kustomization these manifests may use; anything
// else in a kustomization.yaml is reported, so a typo there fails too.
type kustomization struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Namespace  string            `json:"namespace,omitempty"`
	Resources  []string          `json:"resources"`
	Labels     []kustomizeLabels `json:"labels,omitempty"`
	Images     []kustomizeImage  `json:"images,omitempty"`
}

type kustomizeLabels struct {
	Pairs            map[string]string `json:"pairs"`
	IncludeSelectors bool              `json:"includeSelectors,omitempty"`
	IncludeTemplates bool              `json:"includeTemplates,omitempty"`
}

type kustomizeImage struct {
	Name    string `json:"name"`
	NewName string `json:"newName,omitempty"`
	NewTag  string `json:"newTag,omitempty"`
	Digest  string `json:"digest,omitempty"`
}

type decoded struct {
	File   string `json:"file"`
	Object any    `json:"object"`
}

func main() {
	asJSON := flag.Bool("json", false, "print the decoded objects as JSON")
	yaml2json := flag.Bool("yaml2json", false, "convert the YAML document on standard input to JSON")
	flag.Parse()
	if *yaml2json {
		raw, err := io.ReadAll(os.Stdin)
		if err == nil {
			raw, err = yaml.YAMLToJSON(raw)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		_, _ = os.Stdout.Write(raw)
		return
	}
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: k8s-validate [-json] FILE...")
		os.Exit(2)
	}

	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, autoscalingv2.AddToScheme,
		networkingv1.AddToScheme, policyv1.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			panic(err)
		}
	}
	decoder := serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer()

	var out []decoded
	failed := false
	for _, file := range flag.Args() {
		objects, err := decodeFile(decoder, file)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", file, err)
			failed = true
			continue
		}
		out = append(out, objects...)
	}
	if failed {
		os.Exit(1)
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", " ")
		if err := enc.Encode(out); err != nil {
			panic(err)
		}
	} else {
		fmt.Printf("%d objects valid\n", len(out))
	}
}

func decodeFile(decoder runtime.Decoder, file string) ([]decoded, error) {
	var raw []byte
	var err error
	if file == "-" {
		raw, err = io.ReadAll(os.Stdin)
	} else {
		raw, err = os.ReadFile(file)
	}
	if err != nil {
		return nil, err
	}
	if filepath.Base(file) == "kustomization.yaml" {
		var k kustomization
		if err := yaml.UnmarshalStrict(raw, &k); err != nil {
			return nil, err
		}
		if k.APIVersion != "kustomize.config.k8s.io/v1beta1" || k.Kind != "Kustomization" {
			return nil, fmt.Errorf("not a kustomize.config.k8s.io/v1beta1 Kustomization")
		}
		return []decoded{{File: file, Object: k}}, nil
	}

	var objects []decoded
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
	for n := 1; ; n++ {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", n, err)
		}
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		obj, gvk, err := decoder.Decode(doc, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("document %d%s: %w", n, describe(gvk), err)
		}
		meta, ok := obj.(interface{ GetName() string })
		if !ok || meta.GetName() == "" {
			return nil, fmt.Errorf("document %d%s: metadata.name is required", n, describe(gvk))
		}
		objects = append(objects, decoded{File: file, Object: obj})
	}
	if len(objects) == 0 {
		return nil, fmt.Errorf("no objects")
	}
	return objects, nil
}

func describe(gvk *schema.GroupVersionKind) string {
	if gvk == nil || gvk.Kind == "" {
		return ""
	}
	return " (" + gvk.GroupVersion().String() + " " + gvk.Kind + ")"
}

// stripComments drops comment-only lines, so a document of comments alone counts as empty.
func stripComments(doc []byte) []byte {
	var b bytes.Buffer
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '#' {
			b.Write(line)
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

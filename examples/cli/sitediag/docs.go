package main

import (
	"encoding/json"
	"strings"

	"github.com/sitediag/sitediag/httpapi"
)

// schema is the part of an OpenAPI schema the help reads.
type schema struct {
	Ref         string             `json:"$ref"`
	Description string             `json:"description"`
	Properties  map[string]*schema `json:"properties"`
	AllOf       []*schema          `json:"allOf"`
	AnyOf       []*schema          `json:"anyOf"`
}

// memberDocs are the descriptions of the members of the request body of
// POST path in the API's description (which go generate makes of the
// options' doc comments), by JSON name, nested ones as margin.top.
func memberDocs(path string) map[string]string {
	var doc struct {
		Paths map[string]struct {
			Post struct {
				RequestBody struct {
					Content map[string]struct {
						Schema *schema `json:"schema"`
					} `json:"content"`
				} `json:"requestBody"`
			} `json:"post"`
		} `json:"paths"`
		Components struct {
			Schemas map[string]*schema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(httpapi.OpenAPI(), &doc); err != nil {
		return nil
	}
	resolve := func(s *schema) *schema {
		for s != nil && s.Ref != "" {
			s = doc.Components.Schemas[strings.TrimPrefix(s.Ref, "#/components/schemas/")]
		}
		return s
	}
	docs := map[string]string{}
	var walk func(s *schema, prefix string)
	walk = func(s *schema, prefix string) {
		s = resolve(s)
		if s == nil {
			return
		}
		for _, alt := range append(s.AllOf, s.AnyOf...) {
			walk(alt, prefix)
		}
		for name, p := range s.Properties {
			if p.Description != "" {
				docs[prefix+name] = p.Description
			}
			walk(p, prefix+name+".")
		}
	}
	walk(doc.Paths[path].Post.RequestBody.Content["application/json"].Schema, "")
	return docs
}

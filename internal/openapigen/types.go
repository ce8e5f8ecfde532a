package openapigen

// document is an OpenAPI description.
type document struct {
	OpenAPI    string                `json:"openapi"`
	Info       docInfo               `json:"info"`
	Security   []map[string][]string `json:"security"`
	Tags       []docTag              `json:"tags"`
	Paths      map[string]docPath    `json:"paths"`
	Components docComponents         `json:"components"`
}

type docInfo struct {
	Title       string     `json:"title"`
	Version     string     `json:"version"`
	Description string     `json:"description"`
	License     docLicense `json:"license"`
}

type docLicense struct {
	Name       string `json:"name"`
	Identifier string `json:"identifier"`
}

type docTag struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

type docPath map[string]*docOperation // by method

type docOperation struct {
	OperationID string                  `json:"operationId"`
	Summary     string                  `json:"summary"`
	Tags        []string                `json:"tags"`
	Security    []map[string][]string   `json:"security,omitempty"`
	Parameters  []docParameter          `json:"parameters,omitempty"`
	RequestBody *docRequestBody         `json:"requestBody,omitempty"`
	Responses   map[string]*docResponse `json:"responses"`
}

type docParameter struct {
	Name     string  `json:"name"`
	In       string  `json:"in"`
	Required bool    `json:"required"`
	Schema   *Schema `json:"schema"`
}

type docRequestBody struct {
	Required bool                `json:"required"`
	Content  map[string]docMedia `json:"content"`
}

type docMedia struct {
	Schema *Schema `json:"schema"`
}

type docResponse struct {
	Description string                `json:"description"`
	Headers     map[string]*docHeader `json:"headers,omitempty"`
	Content     map[string]docMedia   `json:"content,omitempty"`
}

type docHeader struct {
	Description string  `json:"description"`
	Required    bool    `json:"required,omitempty"`
	Schema      *Schema `json:"schema"`
}

type docComponents struct {
	Schemas         map[string]*Schema           `json:"schemas"`
	SecuritySchemes map[string]docSecurityScheme `json:"securitySchemes"`
}

type docSecurityScheme struct {
	Type string `json:"type"`
	In   string `json:"in"`
	Name string `json:"name"`
}

// apiKeyScheme is the security scheme of the x-api-key header.
const apiKeyScheme = "apiKey"

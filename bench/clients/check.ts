// Compiled (tsc --strict --noEmit) by bench/clients.sh against
// sitediag.d.ts, which openapi-typescript generated from the served
// description: typed requests and answers of a few operations, named by
// path only, and requests the description must refuse.
import type { paths } from "./sitediag";

type Body<P extends keyof paths> = paths[P] extends { post: { requestBody?: { content: { "application/json": infer B } } } } ? B : never;
type Ok<P extends keyof paths> = paths[P] extends { post: { responses: { 200: { content: { "application/json": infer R } } } } } ? R : never;

export const shot: Body<"/screenshot"> = { url: "https://example.com", viewportWidth: 1024, type: "jpeg", blockAds: true };
export const scrape: Body<"/web-scraping"> = { url: "https://example.com", format: ["markdown", "text"] };
export const ports: Body<"/openport"> = { url: "example.com", topPorts: 0 };

export function viewport(r: Ok<"/screenshot">): number {
  return r.meta.viewportWidth;
}

export function title(r: Ok<"/metascraping">): string {
  return typeof r.data === "string" ? r.data : r.data.title;
}

export function services(r: paths["/health/service"]["get"]["responses"][200]["content"]["application/json"]): string[] {
  return r.services.map((s) => s.name + "=" + s.status);
}

export function failure(r: paths["/screenshot"]["post"]["responses"][400]["content"]["application/json"]): string {
  return r.message + ": " + r.details;
}

// @ts-expect-error url is required
export const noURL: Body<"/up"> = {};
// @ts-expect-error gif is not a screenshot type
export const gif: Body<"/screenshot"> = { url: "https://example.com", type: "gif" };
// A number option with 0 as its default is {"type": "integer", "anyOf":
// [the range or enum, {"const": 0}]}: oapi-codegen makes it a plain *int,
// openapi-typescript a number, so 42 is not refused here.
export const topPorts: Body<"/openport"> = { url: "example.com", topPorts: 42 };

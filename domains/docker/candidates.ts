// What a container's labels make of it: an app candidate, from Homepage's `homepage.*` labels (group, name, icon,
// href, description) or a Traefik router's ``Host(`x`)`` rule, with the container's state and health. A container
// with neither, or with no http(s) link to give the app, is no candidate.
import { isWebUrl } from '../../lib/input.ts';
import type { DockerContainer } from './client.ts';

export type ContainerHealth = 'healthy' | 'unhealthy' | 'starting';

export interface Candidate {
  /** What names the candidate across re-creations of its container: its compose service, else its name. */
  key: string;
  container_id: string;
  container_name: string;
  image: string;
  source: 'homepage' | 'traefik';
  name: string;
  href: string;
  description: string;
  group: string | null;
  /** The `homepage.icon` label as written (mapped to an iconRef by the sync). */
  icon_label: string | null;
  state: string;
  health: ContainerHealth | null;
}

const label = (labels: Record<string, string>, name: string): string | null => {
  const value = labels[name]?.trim();
  return value ? value : null;
};

/** Health from the answer's Health (API 1.50+), else from the words of its Status ("Up 3 hours (healthy)"). */
export function healthOf(container: Pick<DockerContainer, 'Health' | 'Status'>): ContainerHealth | null {
  const reported = container.Health?.Status;
  if (reported === 'healthy' || reported === 'unhealthy' || reported === 'starting') return reported;
  if (reported === 'none') return null;
  const said = /\((healthy|unhealthy|health: starting)\)/.exec(container.Status ?? '')?.[1];
  if (said === 'health: starting') return 'starting';
  return (said as ContainerHealth | undefined) ?? null;
}

/**
 * The link of a Traefik router rule: ``Host(`x`)`` (the first host when it lists several), with its
 * ``PathPrefix(`/p`)`` when both must match. The scheme is https unless the router is confined to a plain entry
 * point (`web` or `http`) without TLS: routers with a Host rule are nearly always served on the TLS entry point with
 * the plain one redirecting to it, so an https link works for both, where an http one would bounce or warn.
 */
export function traefikHref(labels: Record<string, string>): string | null {
  if (label(labels, 'traefik.enable') === 'false') return null;
  const routers = Object.keys(labels)
    .map((name) => /^traefik\.http\.routers\.([^.]+)\.rule$/.exec(name)?.[1])
    .filter((router): router is string => router !== undefined)
    .sort();
  const hasTls = (router: string) =>
    Object.keys(labels).some(
      (name) =>
        name.startsWith(`traefik.http.routers.${router}.tls.`) ||
        (name === `traefik.http.routers.${router}.tls` && labels[name] === 'true'),
    );
  // A router with TLS first: its link is the one people use.
  for (const router of [...routers.filter(hasTls), ...routers.filter((r) => !hasTls(r))]) {
    const rule = labels[`traefik.http.routers.${router}.rule`];
    const host = /Host\(\s*`([^`]+)`/.exec(rule)?.[1];
    if (!host) continue;
    const path = rule.includes('||') ? undefined : /PathPrefix\(\s*`(\/[^`]*)`/.exec(rule)?.[1];
    const entrypoints = (label(labels, `traefik.http.routers.${router}.entrypoints`) ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean);
    const plainOnly =
      entrypoints.length > 0 && entrypoints.every((name) => name === 'web' || name === 'http');
    const scheme = plainOnly && !hasTls(router) ? 'http' : 'https';
    const href = `${scheme}://${host}${path ?? '/'}`;
    if (isWebUrl(href)) return href;
  }
  return null;
}

export function containerName(container: Pick<DockerContainer, 'Names' | 'Id'>): string {
  return (container.Names?.[0] ?? container.Id.slice(0, 12)).replace(/^\//, '');
}

/** The container as an app candidate, or null when its labels make none. */
export function candidateOf(container: DockerContainer): Candidate | null {
  const labels = container.Labels ?? {};
  const homepage = Object.keys(labels).some((name) => name.startsWith('homepage.'));
  const labelled = label(labels, 'homepage.href');
  const href = labelled && isWebUrl(labelled) ? labelled : traefikHref(labels);
  if (!href || href.length > 2048) return null;
  const name = containerName(container);
  const project = label(labels, 'com.docker.compose.project');
  const service = label(labels, 'com.docker.compose.service');
  return {
    key: project && service ? `compose:${project}/${service}` : `container:${name}`,
    container_id: container.Id,
    container_name: name,
    image: container.Image ?? '',
    source: homepage ? 'homepage' : 'traefik',
    name: (label(labels, 'homepage.name') ?? service ?? name).slice(0, 200),
    href,
    description: (label(labels, 'homepage.description') ?? '').slice(0, 1000),
    group: label(labels, 'homepage.group')?.slice(0, 100) ?? null,
    icon_label: label(labels, 'homepage.icon'),
    state: (container.State ?? 'unknown').toLowerCase(),
    health: healthOf(container),
  };
}

// One alert per outage. A service runs on a place: its resource (resource_id), else its LAN device (device_mac). A
// place is down while one of its host checks (a service on it with host_check) is down; a resource place depends on
// the resources of its resource dependencies (/api/resources/:id/dependencies), transitively.
//
// The root of a down service is the down place it depends on (its own place, or one up the graph; for a host check,
// only those its place depends on) that nothing further down is above: a place whose every down place up the graph
// leads back to it (a cycle of down places counts as one). Where several qualify, the one whose host check is named
// first wins, so every service of a cycle picks the same root. The walk visits each place once, so a cycle ends it.
//
// The root's host check raises one service.down naming the N services folded into it (their state changes are
// recorded with suppressed_by the root); later services folded into an outage already announced raise nothing.
// When the root is up again, one service.up names those back with it; those still down are judged afresh (and
// alerted) at once. A service down with no root is alerted on its own, as before. Maintenance: a service in a window
// raises nothing, and is judged when the window ends if still down.
import type { Db } from '../../lib/db.ts';
import type { JobDeps } from '../../worker/contract.ts';
import { type RaisedAlert, raiseAlert } from '../alerts/raise.ts';
import { maintenanceAt } from '../maintenance/windows.ts';
import {
  downSince,
  lockOutages,
  type OutageService,
  outageServices,
  resourceDependencies,
  setDownAlert,
  suppressLatestEvents,
} from './store.ts';

type Place = string;

function placeOf(service: Pick<OutageService, 'resource_id' | 'device_mac'>): Place | null {
  if (service.resource_id) return `resource:${service.resource_id}`;
  return service.device_mac ? `device:${service.device_mac}` : null;
}

const isDown = (service: OutageService) => service.enabled && service.state === 'down';

/**
 * The root of each down service that is folded into another's outage: service id to the root's service id (the
 * down host check of the root place). Services that are their own root are left out.
 */
export function outageRoots(
  services: readonly OutageService[],
  dependencies: ReadonlyMap<string, readonly string[]>,
): Map<string, string> {
  // The down host check named first stands for its place (services come ordered by name).
  const standsFor = new Map<Place, OutageService>();
  for (const service of services) {
    const place = placeOf(service);
    if (place && service.host_check && isDown(service) && !standsFor.has(place))
      standsFor.set(place, service);
  }
  const above = (place: Place): Place[] =>
    place.startsWith('resource:')
      ? (dependencies.get(place.slice('resource:'.length)) ?? []).map((id) => `resource:${id}`)
      : [];
  /** The down places reachable from `starts` (breadth-first, each place once). */
  const downFrom = (starts: Place[]): Set<Place> => {
    const seen = new Set<Place>(starts);
    const queue = [...starts];
    const down = new Set<Place>();
    while (queue.length > 0) {
      const place = queue.shift() as Place;
      if (standsFor.has(place)) down.add(place);
      for (const next of above(place)) {
        if (!seen.has(next)) {
          seen.add(next);
          queue.push(next);
        }
      }
    }
    return down;
  };
  const reach = new Map<Place, Set<Place>>();
  for (const place of standsFor.keys()) reach.set(place, downFrom(above(place)));
  const topmost = (place: Place) =>
    [...(reach.get(place) ?? [])].every((other) => reach.get(other)?.has(place) ?? false);

  const roots = new Map<string, string>();
  for (const service of services) {
    const place = placeOf(service);
    if (!place || !isDown(service)) continue;
    const candidates = [...downFrom(service.host_check ? above(place) : [place])].filter(topmost);
    if (candidates.length === 0) continue;
    const root = candidates
      .map((candidate) => standsFor.get(candidate) as OutageService)
      .sort((a, b) => services.indexOf(a) - services.indexOf(b))[0];
    if (root.id !== service.id) roots.set(service.id, root.id);
  }
  return roots;
}

/**
 * The service whose outage `serviceId` belongs to, as the graph stands now: the root it is folded under, else itself.
 * Undefined for a service that no longer exists.
 */
export async function outageRootOf(
  sql: Db,
  serviceId: string,
): Promise<{ id: string; name: string } | undefined> {
  const services = await outageServices(sql);
  const rootId = outageRoots(services, await resourceDependencies(sql)).get(serviceId) ?? serviceId;
  const root = services.find((service) => service.id === rootId);
  return root && { id: root.id, name: root.name };
}

function duration(ms: number): string {
  const minutes = Math.max(1, Math.round(ms / 60_000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return `${hours} h ${minutes % 60} min`;
}

const named = (services: OutageService[]) =>
  services.map((service) => ({ service_id: service.id, name: service.name }));

function downAlert(root: OutageService, affected: OutageService[]): RaisedAlert {
  const more = affected.length
    ? `\n${affected.length} more service(s) folded into this outage: ${affected.map((s) => s.name).join(', ')}`
    : '';
  return {
    event: 'service.down',
    title: affected.length ? `${root.name} is down (${affected.length} affected)` : `${root.name} is down`,
    message: `${root.name} (${root.category}) is down: ${root.message ?? 'no answer'}\n${root.where}${more}`,
    tags: ['red_circle', 'service-down'],
    priority: 4,
    link: '/services',
    subject: `service:${root.id}`,
    data: {
      service_id: root.id,
      service: root.name,
      category: root.category,
      state: 'down',
      reason: root.message,
      root: {
        service_id: root.id,
        name: root.name,
        resource_id: root.resource_id,
        device_mac: root.device_mac,
      },
      affected: named(affected),
      affected_count: affected.length,
    },
  };
}

function upAlert(root: OutageService, back: OutageService[], downFor: number | null): RaisedAlert {
  const lasted = downFor === null ? '' : ` after ${duration(downFor)} down`;
  const more = back.length ? `\nBack with it: ${back.map((s) => s.name).join(', ')}` : '';
  return {
    event: 'service.up',
    title: `${root.name} is back up`,
    message: `${root.name} (${root.category}) is up again${lasted}: ${root.message ?? 'ok'}\n${root.where}${more}`,
    tags: ['green_circle', 'service-up'],
    priority: 3,
    link: '/services',
    subject: `service:${root.id}`,
    resolves: true,
    data: {
      service_id: root.id,
      service: root.name,
      category: root.category,
      state: 'up',
      reason: root.message,
      duration_s: downFor === null ? null : Math.round(downFor / 1000),
      outage_seconds: downFor === null ? null : Math.round(downFor / 1000),
      affected: named(back),
      affected_count: back.length,
    },
  };
}

/**
 * Judges every service's outage together and raises the alerts due: recoveries first (an outage over frees the
 * services still down under it to be judged), then the downs not yet announced, folded by root. The judgement
 * (who announced whose downtime) and the alerts are written under one lock in one transaction: their deliveries
 * are queued with it, so they go out once it is committed, and never for a judgement that was not kept.
 */
export async function settleOutages(deps: JobDeps, now: Date = new Date()): Promise<RaisedAlert[]> {
  const alerts = await deps.sql.begin(async (tx) => {
    await lockOutages(tx);
    const services = await outageServices(tx);
    const byId = new Map(services.map((service) => [service.id, service]));
    const maintenance = await maintenanceAt(tx, now);
    const raised: RaisedAlert[] = [];
    const announce = async (ids: string[], by: string | null) => {
      await setDownAlert(tx, ids, by);
      for (const id of ids) (byId.get(id) as OutageService).down_alert = by;
    };

    // Outages over: the root (or a service alerted on its own) is no longer down.
    for (const root of services) {
      if (root.down_alert !== root.id || isDown(root)) continue;
      const under = services.filter((other) => other.id !== root.id && other.down_alert === root.id);
      const back = under.filter((other) => !isDown(other));
      // Degraded and warning are up too: the check passed.
      if (root.enabled && ['up', 'degraded', 'warning'].includes(root.state)) {
        const since = await downSince(tx, root.id);
        raised.push(upAlert(root, back, since ? now.getTime() - since.getTime() : null));
      }
      await suppressLatestEvents(
        tx,
        back.map((other) => other.id),
        'up',
        root.id,
      );
      await announce([root.id, ...under.map((other) => other.id)], null);
    }
    // Folded services back before their root, or whose root left its outage unannounced (maintenance): silent.
    for (const service of services) {
      const root = service.down_alert ? byId.get(service.down_alert) : undefined;
      if (!root || root.id === service.id) continue;
      if (!isDown(service)) {
        await suppressLatestEvents(tx, [service.id], 'up', root.id);
        await announce([service.id], null);
      } else if (!isDown(root)) {
        await announce([service.id], null);
      }
    }

    // Downs not yet announced, grouped by root.
    const roots = outageRoots(services, await resourceDependencies(tx));
    const outages = new Map<string, OutageService[]>();
    for (const service of services) {
      if (!isDown(service) || service.down_alert !== null || maintenance.has(service.id)) continue;
      const rootId = roots.get(service.id) ?? service.id;
      const root = byId.get(rootId) as OutageService;
      if (root.down_alert === root.id) {
        // The outage is announced already: this one joins it quietly.
        await suppressLatestEvents(tx, [service.id], 'down', root.id);
        await announce([service.id], root.id);
        continue;
      }
      const folded = outages.get(rootId) ?? [];
      if (rootId !== service.id) folded.push(service);
      outages.set(rootId, folded);
    }
    for (const [rootId, folded] of outages) {
      const root = byId.get(rootId) as OutageService;
      await suppressLatestEvents(
        tx,
        folded.map((service) => service.id),
        'down',
        root.id,
      );
      // With those folded quietly while the root was in maintenance.
      const affected = [
        ...services.filter((other) => other.id !== root.id && other.down_alert === root.id),
        ...folded,
      ];
      const ids = affected.map((service) => service.id);
      if (maintenance.has(root.id) || !isDown(root)) {
        // The cause is in maintenance: those on it stay quiet under it until it is back.
        await announce(ids, root.id);
        continue;
      }
      raised.push(downAlert(root, affected));
      await announce([root.id, ...ids], root.id);
    }
    for (const alert of raised) await raiseAlert(tx, deps, alert);
    return raised;
  });
  return alerts;
}

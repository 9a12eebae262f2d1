// The incidents card: the open incidents, each linking to its page.
import type { Answer } from '../../../types.ts';
import { IncidentList } from '../../incidents/IncidentList.tsx';

export type OpenIncidents = Answer<'/api/incidents'>;

export function IncidentsCard({ data }: { data: OpenIncidents }) {
  return <IncidentList items={data.items} empty="No open incidents" />;
}

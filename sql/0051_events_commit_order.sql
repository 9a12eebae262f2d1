-- The timeline in commit order, for its followers. An event's id is taken from a sequence when it is inserted, but
-- the event is seen only when its transaction commits, so a later id can be seen first: a follower that kept only
-- the last id it read would pass over the earlier one for good. Each event now keeps its transaction's id; a
-- follower reads only events of transactions older than every one still running (the snapshot's xmin: nothing can
-- commit below it any more), in (tx, id) order, and keeps its place as the (tx, id) of the last event it read.

-- The events already there were all committed before this: they take the lowest transaction id (0, before every real
-- one) and keep their id order; a constant needs no rewrite of the table. New events take their transaction's id.
alter table events add column tx xid8 not null default '0';
alter table events alter column tx set default pg_current_xact_id();
create index events_commit_order_idx on events (tx, id);

-- The follower's place: the last event it read was (last_event_tx, last_event_id). Up to now it was the id alone,
-- over the events that all have transaction 0 above.
alter table incidents_follower add column last_event_tx xid8 not null default '0';
-- Transaction ids mean nothing in another cluster, so the hub's archives leave them out and a restore gives the rows
-- it loads their default: the restoring transaction's id, for the events and the follower's place alike. Among the
-- restored events the follower goes on after the last id it read, and before every event written after the restore.
alter table incidents_follower alter column last_event_tx set default pg_current_xact_id();

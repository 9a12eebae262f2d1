// What other domains read of the network-host inventory (the Proxmox cards name the hosts they find).
export { listNetworkHosts as networkHostInventory, type NetworkHostRow } from './store.ts';

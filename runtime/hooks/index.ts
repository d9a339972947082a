/**
 * Hooks by the name the schema gives them (`hooks: [name]` in a model's YAML). Each file holds the
 * real exceptions of one model; the generic runtime does everything else.
 */
import type { ModelHooks } from '../data/registry.js';
import { cable } from './cable.js';
import { cabled } from './cabled.js';
import { cableTermination } from './cable_termination.js';
import { aggregate } from './aggregate.js';
import { asn } from './asn.js';
import { asnRange } from './asn_range.js';
import { circuit } from './circuit.js';
import { circuitTermination } from './circuit_termination.js';
import { cachedScope } from './cached_scope.js';
import { scopeParent } from './scope_parent.js';
import { contactAssignment } from './contact_assignment.js';
import { customField } from './custom_field.js';
import { customFieldChoiceSet } from './custom_field_choice_set.js';
import { cluster } from './cluster.js';
import { configContext } from './config_context.js';
import { contentType } from './content_type.js';
import { component } from './component.js';
import { device } from './device.js';
import { componentTemplate } from './component_template.js';
import { deviceBay } from './device_bay.js';
import { moduleInEnabledBay } from './module_in_enabled_bay.js';
import { deviceIps } from './device_ips.js';
import { devicePlacement } from './device_placement.js';
import { deviceType } from './device_type.js';
import { frontPort } from './front_port.js';
import { frontPortTemplate } from './front_port_template.js';
import { interfaceTemplate } from './interface_template.js';
import { fhrpGroup } from './fhrp_group.js';
import { group } from './group.js';
import { permission } from './permission.js';
import { interfaceHooks } from './interface.js';
import { ipAddress } from './ip_address.js';
import { ipRange } from './ip_range.js';
import { journalEntry } from './journal_entry.js';
import { bookmark } from './bookmark.js';
import { tagged_item } from './tagged_item.js';
import { configTemplate } from './config_template.js';
import { renderConfig } from './render_config.js';
import { powerPort } from './power_port.js';
import { powerFeed } from './power_feed.js';
import { prefix } from './prefix.js';
import { rack } from './rack.js';
import { rackType } from './rack_type.js';
import { moduleType } from './module_type.js';
import { moduleTypeProfile } from './module_type_profile.js';
import { notification } from './notification.js';
import { virtualCircuit } from './virtual_circuit.js';
import { virtualCircuitTermination } from './virtual_circuit_termination.js';
import { rackReservation } from './rack_reservation.js';
import { rearPort } from './rear_port.js';
import { rearPortTemplate } from './rear_port_template.js';
import { l2vpnTermination } from './l2vpn_termination.js';
import { service, serviceTemplate } from './service.js';
import { token } from './token.js';
import { tunnelTermination } from './tunnel_termination.js';
import { ikePolicy } from './ike_policy.js';
import { ipsecProposal } from './ipsec_proposal.js';
import { user } from './user.js';
import { virtualChassis } from './virtual_chassis.js';
import { virtualDeviceContext } from './virtual_device_context.js';
import { virtualMachine } from './virtual_machine.js';
import { vlan } from './vlan.js';
import { vlanGroup } from './vlan_group.js';
import { contact } from './contact.js';
import { vmInterface } from './vm_interface.js';
import { wirelessLink } from './wireless_link.js';
import { wirelessPeers } from './wireless_peers.js';
import { connectionStatusHooks } from './connection_status.js';
import { imageAttachment } from './image_attachment.js';
import { imageFieldsHook } from './image_fields.js';
import { webhook } from './webhook.js';
import { webhookDelivery } from './webhook_delivery.js';
import { eventRule } from './event_rule.js';
import { exportTemplate } from './export_template.js';
import { savedFilter } from './saved_filter.js';
import { tag } from './tag.js';
import { objectChange } from './object_change.js';
import { macAddress } from './mac_address.js';
import { macOwner } from './mac_owner.js';
import { platform } from './platform.js';
import { customLink } from './custom_link.js';
import { dataSource } from './data_source.js';
import { dataFile } from './data_file.js';
import { syncedContext } from './synced_context.js';
import { syncedTemplate } from './synced_template.js';

export const hooks: Record<string, ModelHooks> = {
  cable,
  data_source: dataSource,
  data_file: dataFile,
  synced_template: syncedTemplate,
  synced_context: syncedContext,
  cable_termination: cableTermination,
  cabled,
  aggregate,
  asn,
  asn_range: asnRange,
  cluster,
  circuit,
  circuit_termination: circuitTermination,
  cached_scope: cachedScope,
  scope_parent: scopeParent,
  contact_assignment: contactAssignment,
  custom_field: customField,
  custom_field_choice_set: customFieldChoiceSet,
  config_context: configContext,
  content_type: contentType,
  component,
  component_template: componentTemplate,
  device,
  device_bay: deviceBay,
  module_in_enabled_bay: moduleInEnabledBay,
  device_ips: deviceIps,
  device_placement: devicePlacement,
  device_type: deviceType,
  front_port: frontPort,
  front_port_template: frontPortTemplate,
  fhrp_group: fhrpGroup,
  group,
  interface: interfaceHooks,
  interface_template: interfaceTemplate,
  permission,
  ip_address: ipAddress,
  ip_range: ipRange,
  journal_entry: journalEntry,
  bookmark,
  tagged_item,
  config_template: configTemplate,
  render_config: renderConfig,
  power_port: powerPort,
  l2vpn_termination: l2vpnTermination,
  power_feed: powerFeed,
  prefix,
  rack,
  rack_type: rackType,
  module_type: moduleType,
  module_type_profile: moduleTypeProfile,
  notification,
  virtual_circuit: virtualCircuit,
  virtual_circuit_termination: virtualCircuitTermination,
  rack_reservation: rackReservation,
  rear_port: rearPort,
  rear_port_template: rearPortTemplate,
  service,
  service_template: serviceTemplate,
  token,
  tunnel_termination: tunnelTermination,
  ike_policy: ikePolicy,
  ipsec_proposal: ipsecProposal,
  user,
  virtual_chassis: virtualChassis,
  virtual_device_context: virtualDeviceContext,
  virtual_machine: virtualMachine,
  vlan,
  vlan_group: vlanGroup,
  contact,
  vm_interface: vmInterface,
  wireless_link: wirelessLink,
  wireless_peers: wirelessPeers,
  connection_status: connectionStatusHooks,
  image_attachment: imageAttachment,
  image_fields: imageFieldsHook,
  webhook,
  webhook_delivery: webhookDelivery,
  event_rule: eventRule,
  export_template: exportTemplate,
  saved_filter: savedFilter,
  tag,
  object_change: objectChange,
  mac_address: macAddress,
  mac_owner: macOwner,
  platform,
  custom_link: customLink,
};

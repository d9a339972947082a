/** `assigned_object[dcim.interface].device` → ['assigned_object[dcim.interface]', 'device'] */
export function splitPath(path: string): string[] {
  return path.match(/\w+(\[[\w.]+\])?/g) ?? [];
}

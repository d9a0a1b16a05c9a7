'use client'
export {
  type NavigationInput,
  type NavigationResult,
  type NavigationRouter,
  type NavigationSchema,
  type NavigationToolConfig,
  navigationTool,
  useNavigationTool,
} from './navigation.ts'
export { type Connect, ToolmarkProvider, type ToolmarkProviderProps, tabToolmark } from './provider.tsx'
export {
  RouteScope,
  type RouteScopeOptions,
  type RouteScopeProps,
  useRouteScope,
  useRouteTool,
} from './route-scope.tsx'

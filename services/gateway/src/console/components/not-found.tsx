import type { Viewer } from '../session/sessions.usecases';
import { Layout } from './layout';

/** Whatever is not there, or not the viewer's: the same page, so another account's ids reveal nothing. */
export const NotFound = ({ viewer }: { viewer?: Viewer }) => (
  <Layout title="Not found" viewer={viewer}>
    <p>There is nothing here, or it is not yours to see.</p>
    <p>
      <a href="/console">Back to the console</a>
    </p>
  </Layout>
);

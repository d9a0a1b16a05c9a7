<?php

namespace Toolmark\Laravel\Tests\App;

use Illuminate\Foundation\Console\Kernel;

/** TEST APP: the console kernel. */
final class ConsoleKernel extends Kernel
{
}
